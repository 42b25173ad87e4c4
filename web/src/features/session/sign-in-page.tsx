import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useRef } from "react";
import { ApiError, managementApi, rememberCsrfToken, unwrap } from "../../api/management-client";
import { ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { TextField } from "../../ui/field";
import { sessionQuery } from "./session-query";

/** Only paths of this application: a `redirect` naming another site is ignored (no open redirect). */
export function safeRedirect(target: string | undefined): string {
	const ours = target && target.startsWith("/") && !target.startsWith("//") && !target.startsWith("/\\");
	return ours && !target.startsWith("/login") ? target : "/";
}

export function SignInPage() {
	const search = useSearch({ strict: false }) as { redirect?: string };
	const navigate = useNavigate();
	const queryClient = useQueryClient();
	const email = useRef<HTMLInputElement>(null);
	useEffect(() => {
		document.title = "Sign in · AI Application Platform";
		email.current?.focus();
	}, []);
	const signIn = useMutation({
		mutationFn: async (credentials: { email: string; password: string }) => unwrap(await managementApi.session.signIn({ body: credentials })),
		onSuccess: async (session) => {
			rememberCsrfToken(session.csrfToken);
			queryClient.clear();
			queryClient.setQueryData(sessionQuery.queryKey, session);
			await navigate({ href: safeRedirect(search.redirect) });
		},
	});
	const submit = (event: FormEvent<HTMLFormElement>) => {
		event.preventDefault();
		const form = new FormData(event.currentTarget);
		signIn.mutate({ email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") });
	};
	const error = signIn.error instanceof ApiError && signIn.error.status === 400 ? new Error("Enter your email and password.") : signIn.error;
	return (
		<main className="auth-page">
			<div className="auth-card">
				<h1>Sign in</h1>
				<ErrorAlert error={error} />
				<form onSubmit={submit} noValidate>
					<TextField ref={email} label="Email" name="email" type="email" autoComplete="username" required />
					<TextField label="Password" name="password" type="password" autoComplete="current-password" required />
					<Button type="submit" pending={signIn.isPending}>
						Sign in
					</Button>
				</form>
				<p className="muted spaced">
					No account yet? An administrator of your organization can invite you from the Members page.
				</p>
			</div>
		</main>
	);
}
