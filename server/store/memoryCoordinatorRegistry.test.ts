import { describeCoordinatorRegistryContract } from './coordinatorRegistry.contract';
import { MemoryCoordinatorRegistry } from './memoryCoordinatorRegistry';

describeCoordinatorRegistryContract('MemoryCoordinatorRegistry', async () => ({
  store: new MemoryCoordinatorRegistry(),
}));
