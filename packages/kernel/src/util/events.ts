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
