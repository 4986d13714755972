// Sluice SDK errors: every rejection the SDK makes is a SluiceError, from the server's JSON-RPC
// error (its code and data.reason) or from the client itself (code -1 and a reason of its own),
// so a page checks `error.reason` one way whatever failed.

export class SluiceError extends Error {
  constructor(code, message, reason, data) {
    super(message);
    this.name = 'SluiceError';
    this.code = code;
    this.reason = reason;
    this.data = data;
  }

  static fromRPC(error) {
    const data = error && typeof error.data === 'object' && error.data !== null ? error.data : undefined;
    return new SluiceError(error && typeof error.code === 'number' ? error.code : -1,
      (error && error.message) || 'Unknown error', data && data.reason, data);
  }
}

export const clientError = (reason, message) => new SluiceError(-1, message, reason);
