import { MemoryWorkerRegistry } from './memoryWorkerRegistry';
import { describeWorkerRegistryContract } from './workerRegistry.contract';

describeWorkerRegistryContract('MemoryWorkerRegistry', async () => ({ store: new MemoryWorkerRegistry() }));
