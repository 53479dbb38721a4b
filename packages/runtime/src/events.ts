import { EventEmitter } from 'node:events';
import type { EventBus } from '@pro-context/kernel';

/** Creates an event bus. Listener errors are swallowed so one bad listener cannot break a tool call. */
export function createEventBus(): EventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(100);
  return {
    emit(event, payload) {
      for (const listener of emitter.listeners(event)) {
        try {
          (listener as (p: unknown) => void)(payload);
        } catch {
          // ignored: listeners must not break emitters
        }
      }
    },
    on(event, listener) {
      emitter.on(event, listener);
      return () => emitter.off(event, listener);
    },
  };
}
