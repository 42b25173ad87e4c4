import { CopyButton } from "./copy-button";

/** A snippet a person copies into a terminal or a program. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
	return (
		<figure className="code-block">
			<figcaption>
				<span>{label}</span>
				<CopyButton value={code} label={`Copy ${label}`} />
			</figcaption>
			<pre tabIndex={0} aria-label={label}>
				<code>{code}</code>
			</pre>
		</figure>
	);
}
