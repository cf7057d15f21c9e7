// The few meanings a colour has in the console. States map to a tone here (pure, tested); the React side
// maps a tone to its light and dark classes, so colour never carries a state on its own.

/** ok: working as it should; info: fine but not in charge; warn: needs a look soon; bad: broken or gone. */
export type Tone = 'ok' | 'info' | 'warn' | 'bad' | 'neutral';
