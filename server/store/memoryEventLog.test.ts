import { describeEventLogContract } from './eventLog.contract';
import { MemoryEventLog } from './memoryEventLog';

describeEventLogContract('MemoryEventLog', async (clock) => ({ store: new MemoryEventLog({ clock }) }));
