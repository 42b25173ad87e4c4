import { type ButtonHTMLAttributes, forwardRef } from "react";
import { Spinner } from "./spinner";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
	variant?: "primary" | "secondary" | "danger" | "ghost";
	size?: "medium" | "small";
	/** Shows progress and refuses further clicks while an action runs. */
	pending?: boolean;
}

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
	{ variant = "primary", size = "medium", pending = false, disabled, className, children, type = "button", ...rest },
	ref,
) {
	return (
		<button
			ref={ref}
			type={type}
			className={["button", `button-${variant}`, size === "small" ? "button-small" : "", className ?? ""].join(" ").trim()}
			disabled={disabled || pending}
			aria-busy={pending || undefined}
			{...rest}
		>
			{pending ? <Spinner size="small" /> : null}
			{children}
		</button>
	);
});
