// Moved to server/testing/ and ./memoryStateStore.ts; this re-export goes once no test imports this path.
export { dagFromYaml } from '../../testing/dagFromYaml';
export { RecordingLogger, type LogLine } from '../../testing/recordingLogger';
export { MemoryStateStore } from './memoryStateStore';
