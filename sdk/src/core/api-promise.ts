/**
 * What every client method returns, after openai-node's core/api-promise.ts: a Promise of the
 * answer's body that also gives access to the HTTP response when asked.
 *
 *   const source = await client.knowledge.sources.retrieve(id);
 *   const { data, response, requestId } = await client.knowledge.sources.retrieve(id).withResponse();
 *   const { traceId } = await client.assistants.run("support-bot", "Hello").withResponse();
 */

/** A successful answer: its parsed body, the response (body already read), its `X-Request-Id` and, for a generation, its `X-Trace-Id`. */
export interface WithResponse<T> {
	data: T;
	response: Response;
	/** The `X-Request-Id` header; quote it when reporting a problem. */
	requestId: string | undefined;
	/** The `X-Trace-Id` header of a generation (runtime calls): the trace recording it. Undefined for other calls. */
	traceId: string | undefined;
}

export function requestIdOf(response: Response): string | undefined {
	return response.headers.get("x-request-id") ?? undefined;
}

/** The trace a generation's answer names (`X-Trace-Id`), successful or not. */
export function traceIdOf(headers: Headers): string | undefined {
	return headers.get("x-trace-id") ?? undefined;
}

export class APIPromise<T> extends Promise<T> {
	readonly #result: Promise<WithResponse<T>>;

	constructor(result: Promise<WithResponse<T>>) {
		// The base promise is never observed: then/catch/finally below read `result` instead.
		super((resolve) => resolve(undefined as T));
		this.#result = result;
	}

	/** Derived promises (e.g. from Promise.prototype methods) are plain Promises. */
	static override get [Symbol.species]() {
		return Promise;
	}

	/** The body, the response and its request id. */
	withResponse(): Promise<WithResponse<T>> {
		return this.#result;
	}

	/** The HTTP response (its body already read, except for streams). */
	asResponse(): Promise<Response> {
		return this.#result.then((result) => result.response);
	}

	/** An APIPromise of `transform(body)` over the same response. */
	map<U>(transform: (data: T, response: Response) => U): APIPromise<U> {
		return new APIPromise(this.#result.then((result) => ({ ...result, data: transform(result.data, result.response) })));
	}

	override then<TResult1 = T, TResult2 = never>(
		onfulfilled?: ((value: T) => TResult1 | PromiseLike<TResult1>) | null,
		onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
	): Promise<TResult1 | TResult2> {
		return this.#result.then((result) => result.data).then(onfulfilled, onrejected);
	}

	override catch<TResult = never>(onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null): Promise<T | TResult> {
		return this.then(undefined, onrejected);
	}

	override finally(onfinally?: (() => void) | null): Promise<T> {
		return this.then().finally(onfinally);
	}
}
