import { html, page } from "./layout";

/** A page that says what happened in plain words: never a stack trace or a bare JSON error. */
export function renderErrorPage(input: { title: string; message: string }): string {
	return page(input.title, html`<h1>${input.title}</h1><p>${input.message}</p>`);
}
