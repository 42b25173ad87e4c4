import { Fragment, useId, useRef } from "react";
import { Button } from "../../ui/button";
import { PLACEHOLDER, placeholdersIn } from "./editor-model";

/**
 * The system prompt with its `{{variables}}` highlighted: the text is a real textarea (typing,
 * selection, spelling, screen readers as usual); behind it a copy with the same layout paints a
 * mark under each placeholder, blue when the variable is declared, amber when it is not. Which
 * placeholders the prompt uses is also said in words below it, with a way to declare the missing.
 */
export function PromptField({
	value,
	onChange,
	declared,
	onDeclare,
	error,
	readOnly,
}: {
	value: string;
	onChange: (value: string) => void;
	declared: ReadonlySet<string>;
	onDeclare?: (name: string) => void;
	error?: string;
	readOnly: boolean;
}) {
	const id = useId();
	const highlight = useRef<HTMLDivElement>(null);
	const used = placeholdersIn(value);
	const undeclared = used.filter((name) => !declared.has(name));
	const describedBy = [`${id}-description`, `${id}-summary`, error ? `${id}-error` : ""].filter(Boolean).join(" ");
	return (
		<div className={`field${error ? " field-invalid" : ""}`}>
			<label htmlFor={id} className="field-label">
				System prompt
			</label>
			<p id={`${id}-description`} className="field-description">
				Sent first, before the caller's input. <code>{"{{name}}"}</code> is replaced by the variable's value.
			</p>
			<div className="prompt-editor">
				<div className="prompt-highlight" ref={highlight} aria-hidden="true">
					{segments(value).map((segment, index) =>
						segment.variable === undefined ? (
							<Fragment key={index}>{segment.text}</Fragment>
						) : (
							<mark key={index} className={declared.has(segment.variable) ? "prompt-variable" : "prompt-variable prompt-variable-undeclared"}>
								{segment.text}
							</mark>
						),
					)}
					{/* A trailing newline in a textarea takes a line; in a div only with something after it. */}
					{"\u200b"}
				</div>
				<textarea
					id={id}
					className="input"
					value={value}
					readOnly={readOnly}
					spellCheck
					aria-invalid={error ? true : undefined}
					aria-describedby={describedBy}
					onChange={(event) => onChange(event.target.value)}
					onScroll={(event) => {
						if (highlight.current) highlight.current.scrollTop = event.currentTarget.scrollTop;
					}}
				/>
			</div>
			<div id={`${id}-summary`} className="field-description">
				{used.length === 0 ? (
					<p>No variables in the prompt.</p>
				) : (
					<p>
						Variables in the prompt:{" "}
						{used.map((name, index) => (
							<Fragment key={name}>
								{index > 0 ? ", " : null}
								<code>{name}</code>
								{declared.has(name) ? null : " (not declared)"}
							</Fragment>
						))}
						.
					</p>
				)}
			</div>
			{undeclared.length > 0 && onDeclare ? (
				<ul className="token-list">
					{undeclared.map((name) => (
						<li key={name}>
							<Button variant="secondary" size="small" onClick={() => onDeclare(name)}>
								Declare {name}
							</Button>
						</li>
					))}
				</ul>
			) : null}
			{error ? (
				<p id={`${id}-error`} className="field-error">
					{error}
				</p>
			) : null}
		</div>
	);
}

function segments(text: string): { text: string; variable?: string }[] {
	const parts: { text: string; variable?: string }[] = [];
	let last = 0;
	for (const match of text.matchAll(PLACEHOLDER)) {
		const start = match.index ?? 0;
		if (start > last) parts.push({ text: text.slice(last, start) });
		parts.push({ text: match[0], variable: match[1] });
		last = start + match[0].length;
	}
	if (last < text.length) parts.push({ text: text.slice(last) });
	return parts;
}
