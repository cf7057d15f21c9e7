import { describeSuspendFlagsContract } from './suspendFlags.contract';
import { MemorySuspendFlags } from './memorySuspendFlags';

describeSuspendFlagsContract('MemorySuspendFlags', async () => ({ store: new MemorySuspendFlags() }));
