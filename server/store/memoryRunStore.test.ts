import { MemoryRunStore } from './memoryRunStore';
import { describeRunStoreContract } from './runStore.contract';

describeRunStoreContract('MemoryRunStore', async () => ({ store: new MemoryRunStore() }));
