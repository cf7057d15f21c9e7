import { describeCancelRequestsContract } from './cancelRequests.contract';
import { MemoryCancelRequests } from './memoryCancelRequests';

describeCancelRequestsContract('MemoryCancelRequests', async () => ({ store: new MemoryCancelRequests() }));
