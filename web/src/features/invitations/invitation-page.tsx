import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { ApiError, managementApi, rememberCsrfToken, unwrap } from "../../api/management-client";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { TextField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { LoadingState } from "../../ui/spinner";
import { sessionQuery } from "../session/session-query";

const STATUS_WORDS = {
	expired: { title: "This invitation has expired", text: "Invitation links work for 7 days. Ask an administrator of the organization for a new one." },
	accepted: { title: "This invitation has already been used", text: "Each link works once. If it was you, sign in." },
	revoked: { title: "This invitation was withdrawn", text: "An administrator of the organization revoked it, or sent a newer link. Ask them for a new one if you still need it." },
} as const;

/**
 * Where an invitation link leads (/invitations/<token>), before anyone signs in: someone new
 * chooses a password (and a name); someone with an account signs in with it. Then they are signed
 * in and land in the organization. A link expired, used or withdrawn says so.
 */
export function InvitationPage() {
	const { token } = useParams({ strict: false }) as { token: string };
	const navigate = useNavigate();
	const queryClient = useQueryClient();
	const invitation = useQuery({
		queryKey: ["invitations", token],
		queryFn: async () => unwrap(await managementApi.invitations.describeInvitation({ params: { token } })),
		retry: false,
	});
	const [name, setName] = useState("");
	const [password, setPassword] = useState("");
	const accept = useMutation({
		mutationFn: async () => unwrap(await managementApi.invitations.acceptInvitation({ params: { token }, body: { password, ...(name.trim() ? { name: name.trim() } : {}) } })),
		onSuccess: async (session) => {
			rememberCsrfToken(session.csrfToken);
			queryClient.clear();
			queryClient.setQueryData(sessionQuery.queryKey, session);
			const joined = session.organizations.find((organization) => organization.id === invitation.data?.organizationId) ?? session.organizations[0];
			const workspaceId = joined?.workspaces[0]?.id;
			await navigate(workspaceId ? { to: "/workspaces/$workspaceId", params: { workspaceId } } : { to: "/" });
		},
	});
	useEffect(() => {
		document.title = "Invitation · AI Application Platform";
	}, []);
	const submit = (event: FormEvent) => {
		event.preventDefault();
		accept.mutate();
	};
	const error = accept.error instanceof ApiError ? accept.error : undefined;
	const passwordIssue = error?.issueFor("password");
	const details = invitation.data;

	let content;
	if (invitation.isPending) content = <LoadingState label="Opening the invitation" />;
	else if (invitation.error || !details) {
		content = (
			<>
				<h1>Invitation link not valid</h1>
				<ErrorAlert error={invitation.error} />
				<p>
					<Link to="/login" search={{ redirect: undefined }}>
						Go to sign in
					</Link>
				</p>
			</>
		);
	} else if (details.status !== "pending") {
		const words = STATUS_WORDS[details.status];
		content = (
			<>
				<h1>{words.title}</h1>
				<Alert tone="warning">
					<p>{details.status === "expired" ? `It expired on ${formatDateTime(details.expiresAt)}. ${words.text}` : words.text}</p>
				</Alert>
				<p>
					<Link to="/login" search={{ redirect: undefined }}>
						Go to sign in
					</Link>
				</p>
			</>
		);
	} else {
		content = (
			<>
				<h1>Join {details.organizationName}</h1>
				<p>
					{details.invitedBy ? `${details.invitedBy} invited you` : "You are invited"} to join as <strong>{details.role}</strong>. This link works once, until{" "}
					{formatDateTime(details.expiresAt)}.
				</p>
				<ErrorAlert error={passwordIssue ? undefined : accept.error} />
				<form onSubmit={submit} noValidate className="spaced">
					<TextField label="Email" name="email" type="email" autoComplete="username" value={details.email} readOnly />
					{details.accountExists ? (
						<>
							<p className="field-description">You already have an account with this email: sign in with its password to accept.</p>
							<TextField
								label="Password"
								type="password"
								autoComplete="current-password"
								value={password}
								onChange={(event) => setPassword(event.target.value)}
								error={passwordIssue}
								required
								autoFocus
							/>
							<Button type="submit" pending={accept.isPending}>
								Sign in and join
							</Button>
						</>
					) : (
						<>
							<TextField label="Your name" optional autoComplete="name" value={name} onChange={(event) => setName(event.target.value)} error={error?.issueFor("name")} maxLength={200} autoFocus />
							<TextField
								label="Choose a password"
								description="At least 10 characters. You sign in with this email and password."
								type="password"
								autoComplete="new-password"
								value={password}
								onChange={(event) => setPassword(event.target.value)}
								error={passwordIssue}
								maxLength={1024}
								required
							/>
							<Button type="submit" pending={accept.isPending}>
								Create account and join
							</Button>
						</>
					)}
				</form>
			</>
		);
	}
	return (
		<main className="auth-page">
			<div className="auth-card">{content}</div>
		</main>
	);
}
