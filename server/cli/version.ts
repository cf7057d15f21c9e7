// The version printed by `dagu version`: core's, which the API reports too.
export { VERSION } from '../core/version';
