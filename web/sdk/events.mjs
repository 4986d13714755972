// What Session, Stream and Call share: events with the notification as the detail, and the
// handle arguments that take a Stream as well as its handle string.

// EventTarget plus `on(type, fn)`, where fn gets the event's detail.
export class Emitter extends EventTarget {
  on(type, listener) {
    const wrapped = (event) => listener(event.detail, event);
    this.addEventListener(type, wrapped);
    return () => this.removeEventListener(type, wrapped);
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, {detail}));
  }
}

export const handleOf = (target) => (target && typeof target === 'object' ? target.handle : target);
