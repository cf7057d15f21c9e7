// Moved to server/testing/fakeTime.ts; this re-export goes once no test imports this path.
export { FakeTime, settle } from '../../testing/fakeTime';
