/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
	return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A fragment already escaped (built by these page functions), to tell it apart from raw text. */
export interface Html {
	readonly html: string;
}

export function html(strings: TemplateStringsArray, ...values: (string | number | Html | Html[] | null | undefined | false)[]): Html {
	let out = strings[0];
	values.forEach((value, index) => {
		if (Array.isArray(value)) out += value.map((fragment) => fragment.html).join("");
		else if (value && typeof value === "object") out += value.html;
		else if (value !== null && value !== undefined && value !== false) out += escapeHtml(String(value));
		out += strings[index + 1];
	});
	return { html: out };
}

/**
 * Styles inline (no external assets, nothing fetched), relative units so the page reflows at 200%
 * zoom, a visible focus ring, system fonts, and contrast above WCAG AA.
 */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:36rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d4da;border-radius:.5rem}
main.wide{max-width:60rem}
.table-wrap{overflow-x:auto}
td .muted{word-break:break-all}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
fieldset{border:1px solid #d0d4da;border-radius:.375rem;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600;padding:0 .25rem}
fieldset label{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.5rem 0}
input[type=email],input[type=password]{width:100%;padding:.5rem;font:inherit;border:1px solid #6b7280;border-radius:.25rem}
input[type=radio],input[type=checkbox]{margin-top:.3rem;width:1.1rem;height:1.1rem}
button{font:inherit;padding:.5rem 1rem;border-radius:.25rem;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;margin:.5rem .5rem 0 0}
button.secondary{background:#fff;color:#1d4ed8}
button.danger{background:#fff;color:#b91c1c;border-color:#b91c1c}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{border-left:4px solid #b91c1c;background:#fef2f2;padding:.5rem .75rem;margin:1rem 0}
.muted{color:#4b5563;font-size:.9375rem}
code{font-size:.9375rem;word-break:break-all;background:#f4f5f7;padding:0 .25rem;border-radius:.25rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.5rem .25rem;border-bottom:1px solid #e5e7eb;vertical-align:top}
`;

/** A whole page: language, viewport, title, one main landmark. */
export function page(title: string, body: Html, options: { wide?: boolean } = {}): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main${options.wide ? ' class="wide"' : ""}>
${body.html}
</main>
</body>
</html>
`;
}

/** Security headers for every page: nothing loads from anywhere, no framing (clickjacking on the consent screen), no caching. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
	"content-type": "text/html; charset=utf-8",
	"content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
	"x-frame-options": "DENY",
	"cache-control": "no-store",
	"referrer-policy": "no-referrer",
	"x-content-type-options": "nosniff",
});

/** The email and password form both sign-in pages show. */
export function signInForm(input: { action: string; csrf: string; email?: string }): Html {
	return html`<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ""}" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`;
}

export function errorBlock(message: string | undefined): Html | null {
	return message ? html`<div class="error" role="alert"><p>${message}</p></div>` : null;
}
