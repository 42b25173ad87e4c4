/**
 * Cursor pagination (`{data, hasMore, nextCursor}`; pass `nextCursor` as `cursor`), after
 * openai-node's core/pagination.ts:
 *
 *   for await (const source of client.knowledge.sources.list()) ...      every item, page after page
 *   const page = await client.knowledge.sources.list({ limit: 50 });      one page (also `.page()`)
 *   if (page.hasNextPage()) next = await page.getNextPage();
 *   for await (const page of client.knowledge.sources.list().iterPages()) ...
 */
import { PlatformError } from "../errors.js";
import { APIPromise, type WithResponse } from "./api-promise.js";

/** The body of every list answer. */
export interface PageBody<Item> {
	data: Item[];
	hasMore: boolean;
	nextCursor: string | null;
}

/** Fetches the page that starts at `cursor` (the first when undefined). */
export type PageFetcher<Item> = (cursor: string | undefined) => APIPromise<PageBody<Item>>;

/** One page of a list; iterating it yields its items and those of every later page. */
export class Page<Item> implements AsyncIterable<Item> {
	readonly data: Item[];
	readonly hasMore: boolean;
	readonly nextCursor: string | null;
	readonly response: Response;
	readonly requestId: string | undefined;
	readonly #fetchPage: PageFetcher<Item>;

	constructor(result: WithResponse<PageBody<Item>>, fetchPage: PageFetcher<Item>) {
		this.data = result.data.data;
		this.hasMore = result.data.hasMore;
		this.nextCursor = result.data.nextCursor;
		this.response = result.response;
		this.requestId = result.requestId;
		this.#fetchPage = fetchPage;
	}

	hasNextPage(): boolean {
		return this.hasMore && this.nextCursor !== null;
	}

	getNextPage(): PagePromise<Item> {
		if (!this.hasNextPage() || this.nextCursor === null) throw new PlatformError("This is the last page; check hasNextPage() first.");
		return fetchPagePromise(this.#fetchPage, this.nextCursor);
	}

	/** This page, then each later one. */
	async *iterPages(): AsyncGenerator<Page<Item>> {
		yield this;
		let next = this.hasNextPage() ? await this.getNextPage() : undefined;
		while (next) {
			yield next;
			next = next.hasNextPage() ? await next.getNextPage() : undefined;
		}
	}

	async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
		for await (const page of this.iterPages()) yield* page.data;
	}
}

/** A list call: await it for the first page, or iterate it for every item. */
export class PagePromise<Item> extends APIPromise<Page<Item>> implements AsyncIterable<Item> {
	/** The first page (the same as awaiting the list call). */
	page(): Promise<Page<Item>> {
		return this.then((page) => page);
	}

	/** The first page, then each later one. */
	async *iterPages(): AsyncGenerator<Page<Item>> {
		yield* (await this).iterPages();
	}

	async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
		yield* await this;
	}
}

/** The page at `cursor` as a PagePromise whose pages know how to fetch their successors. */
export function fetchPagePromise<Item>(fetchPage: PageFetcher<Item>, cursor: string | undefined): PagePromise<Item> {
	return new PagePromise(
		fetchPage(cursor)
			.withResponse()
			.then((result) => ({ ...result, data: new Page(result, fetchPage) })),
	);
}
