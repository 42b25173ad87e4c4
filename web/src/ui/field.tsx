import { type ComponentProps, type ReactNode, useId } from "react";

interface FieldFrameProps {
	label: ReactNode;
	description?: ReactNode;
	/** The server's issue for this field (the envelope's `fields`), shown under it and announced. */
	error?: string;
	optional?: boolean;
}

function useFieldIds(error: string | undefined, description: ReactNode) {
	const id = useId();
	const describedBy = [description ? `${id}-description` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
	return { id, describedBy };
}

function Frame({ id, label, description, error, optional, children }: FieldFrameProps & { id: string; children: ReactNode }) {
	return (
		<div className={`field${error ? " field-invalid" : ""}`}>
			<label htmlFor={id} className="field-label">
				{label}
				{optional ? <span className="field-optional"> (optional)</span> : null}
			</label>
			{description ? (
				<p id={`${id}-description`} className="field-description">
					{description}
				</p>
			) : null}
			{children}
			{error ? (
				<p id={`${id}-error`} className="field-error">
					{error}
				</p>
			) : null}
		</div>
	);
}

export function TextField({ label, description, error, optional, ...input }: FieldFrameProps & ComponentProps<"input">) {
	const { id, describedBy } = useFieldIds(error, description);
	return (
		<Frame id={id} label={label} description={description} error={error} optional={optional}>
			<input id={id} className="input" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
		</Frame>
	);
}

export function TextAreaField({ label, description, error, optional, ...textarea }: FieldFrameProps & ComponentProps<"textarea">) {
	const { id, describedBy } = useFieldIds(error, description);
	return (
		<Frame id={id} label={label} description={description} error={error} optional={optional}>
			<textarea id={id} className="input textarea" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...textarea} />
		</Frame>
	);
}

export function SelectField({
	label,
	description,
	error,
	optional,
	children,
	...select
}: FieldFrameProps & ComponentProps<"select"> & { children: ReactNode }) {
	const { id, describedBy } = useFieldIds(error, description);
	return (
		<Frame id={id} label={label} description={description} error={error} optional={optional}>
			<select id={id} className="input select" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...select}>
				{children}
			</select>
		</Frame>
	);
}

export function CheckboxField({ label, description, ...input }: { label: ReactNode; description?: ReactNode } & Omit<ComponentProps<"input">, "type">) {
	const id = useId();
	return (
		<div className="checkbox-field">
			<input id={id} type="checkbox" aria-describedby={description ? `${id}-description` : undefined} {...input} />
			<label htmlFor={id}>
				{label}
				{description ? (
					<span id={`${id}-description`} className="field-description">
						{description}
					</span>
				) : null}
			</label>
		</div>
	);
}
