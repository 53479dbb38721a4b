import { EventEmitter } from 'node:events';

/** Events the kernel's bus carries. */
export interface KernelEvents {
  /** The set of listable resources changed (a library resolved): hosts emit `notifications/resources/list_changed`. */
  'resources.changed': { reason: string };
  /** The set of tools changed. */
  'tools.changed': { reason: string };
}

/** A small typed event bus, one per kernel. */
export interface EventBus {
  emit<K extends keyof KernelEvents>(event: K, payload: KernelEvents[K]): void;
  /** Subscribes; returns the unsubscribe function. */
  on<K extends keyof KernelEvents>(event: K, listener: (payload: KernelEvents[K]) => void): () => void;
}

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
