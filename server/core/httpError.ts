// The one error type that ends an HTTP request: the status, the stable code of the JSON body and any extra
// headers. The API's named errors extend it and the coordinator throws it, so one `instanceof` and one body
// shape serve both servers. It lives in core because both layers import it and it holds no I/O.

/** The JSON body of every error answer, from the API and from the coordinator. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** Thrown to end a request with `status`; `code` is the machine-readable code in the body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers (the basic-auth challenge, `Connection: close`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** The body this error is answered with. */
  body(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}
