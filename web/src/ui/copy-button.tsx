import { useState } from "react";
import { Button } from "./button";

/** Copies `value` to the clipboard and says so (announced to screen readers). */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
	const [copied, setCopied] = useState(false);
	const copy = async () => {
		await navigator.clipboard.writeText(value);
		setCopied(true);
		setTimeout(() => setCopied(false), 2000);
	};
	return (
		<>
			<Button variant="secondary" size="small" onClick={copy}>
				{copied ? "Copied" : label}
			</Button>
			<span className="visually-hidden" role="status">
				{copied ? "Copied to the clipboard" : ""}
			</span>
		</>
	);
}
