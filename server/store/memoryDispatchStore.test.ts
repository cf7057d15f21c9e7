import { describeDispatchStoreContract } from './dispatchStore.contract';
import { MemoryDispatchStore } from './memoryDispatchStore';

describeDispatchStoreContract('MemoryDispatchStore', async () => ({ store: new MemoryDispatchStore() }), {
  durable: false,
  baseMs: () => Date.UTC(2026, 2, 1, 10),
});
