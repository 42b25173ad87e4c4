import type { AnyRoute } from "@tanstack/react-router";
import { createRoute, lazyRouteComponent, Outlet, redirect } from "@tanstack/react-router";
import { sessionQuery } from "../features/session/session-query";
import type { RouterContext } from "./router";

/**
 * The administration pages (API keys, provider credentials, members and invitations, the
 * organization's settings) and the public invitation page. Each page is its own chunk, loaded when
 * first opened: the first page a person sees stays small.
 */
export function administrationRoutes<Root extends AnyRoute, Authenticated extends AnyRoute, Workspace extends AnyRoute>(parents: { root: Root; authenticated: Authenticated; workspace: Workspace }) {
	/** /invitations/$token: no session needed, the link's token is the credential. */
	const invitationRoute = createRoute({
		getParentRoute: () => parents.root,
		path: "/invitations/$token",
		component: lazyRouteComponent(() => import("../features/invitations/invitation-page"), "InvitationPage"),
	});

	/** /organizations/$organizationId/…: the organization must be one of the user's (a removed member is sent home). */
	const organizationRoute = createRoute({
		getParentRoute: () => parents.authenticated,
		path: "/organizations/$organizationId",
		beforeLoad: async ({ context, params }) => {
			const session = await (context as RouterContext).queryClient.ensureQueryData(sessionQuery);
			if (!session.organizations.some((organization) => organization.id === params.organizationId)) throw redirect({ to: "/" });
		},
		component: Outlet,
	});
	const membersRoute = createRoute({
		getParentRoute: () => organizationRoute,
		path: "/members",
		component: lazyRouteComponent(() => import("../features/members/members-page"), "MembersPage"),
	});
	const settingsRoute = createRoute({
		getParentRoute: () => organizationRoute,
		path: "/settings",
		component: lazyRouteComponent(() => import("../features/organization/organization-settings-page"), "OrganizationSettingsPage"),
	});

	const apiKeysRoute = createRoute({
		getParentRoute: () => parents.workspace,
		path: "/api-keys",
		component: lazyRouteComponent(() => import("../features/api-keys/api-keys-page"), "ApiKeysPage"),
	});
	const providerCredentialsRoute = createRoute({
		getParentRoute: () => parents.workspace,
		path: "/provider-credentials",
		component: lazyRouteComponent(() => import("../features/provider-credentials/provider-credentials-page"), "ProviderCredentialsPage"),
	});

	return {
		root: [invitationRoute] as const,
		authenticated: [organizationRoute.addChildren([membersRoute, settingsRoute])] as const,
		workspace: [apiKeysRoute, providerCredentialsRoute] as const,
	};
}
