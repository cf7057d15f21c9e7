import { MemoryQueueStore } from './memoryQueueStore';
import { describeQueueStoreContract } from './queueStore.contract';

describeQueueStoreContract('MemoryQueueStore', async () => ({ store: new MemoryQueueStore() }));
