import type { QueryClient } from "@tanstack/react-query";
import { createRootRouteWithContext, createRoute, createRouter, Link, Outlet, redirect } from "@tanstack/react-router";
import { isUnauthenticated } from "../api/management-client";
import { ConnectionsPage } from "../features/account/connections-page";
import { assistantRoutes } from "../features/assistants/routes";
import { evaluationRoutes } from "../features/evaluations/routes";
import { HomePage } from "../features/home/home-page";
import { knowledgeRoutes } from "../features/knowledge/routes";
import { traceRoutes } from "../features/traces/routes";
import { sessionQuery } from "../features/session/session-query";
import { SignInPage } from "../features/session/sign-in-page";
import { ErrorAlert } from "../ui/alert";
import { EmptyState, PageHeader } from "../ui/page";
import { administrationRoutes } from "./administration-routes";
import { AppShell } from "./app-shell";
import { findWorkspace, firstWorkspaceId } from "./workspace-context";

export interface RouterContext {
	queryClient: QueryClient;
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
	component: Outlet,
	notFoundComponent: NotFoundPage,
	errorComponent: ({ error }) => (
		<main className="content">
			<PageHeader title="Something went wrong" />
			<ErrorAlert error={error} />
		</main>
	),
});

const signInRoute = createRoute({
	getParentRoute: () => rootRoute,
	path: "/login",
	validateSearch: (search: Record<string, unknown>): { redirect?: string } => ({ redirect: typeof search.redirect === "string" ? search.redirect : undefined }),
	component: SignInPage,
});

/** Every page below needs a session: without one, sign in first and come back to the same page. */
export const authenticatedRoute = createRoute({
	getParentRoute: () => rootRoute,
	id: "authenticated",
	beforeLoad: async ({ context, location }) => {
		try {
			await context.queryClient.ensureQueryData(sessionQuery);
		} catch (error) {
			if (isUnauthenticated(error)) throw redirect({ to: "/login", search: { redirect: location.href } });
			throw error;
		}
	},
	component: AppShell,
});

const indexRoute = createRoute({
	getParentRoute: () => authenticatedRoute,
	path: "/",
	beforeLoad: async ({ context }) => {
		const workspaceId = firstWorkspaceId(await context.queryClient.ensureQueryData(sessionQuery));
		if (workspaceId) throw redirect({ to: "/workspaces/$workspaceId", params: { workspaceId } });
	},
	component: () => (
		<>
			<PageHeader title="No workspace yet" />
			<EmptyState title="You are not a member of any organization.">
				<p>Ask an administrator to invite you, or create an organization with the operator CLI.</p>
			</EmptyState>
		</>
	),
});

/** /workspaces/$workspaceId/…: the workspace must be one of the user's (a removed member sees not-found). */
export const workspaceRoute = createRoute({
	getParentRoute: () => authenticatedRoute,
	path: "/workspaces/$workspaceId",
	beforeLoad: async ({ context, params }) => {
		if (!findWorkspace(await context.queryClient.ensureQueryData(sessionQuery), params.workspaceId)) throw redirect({ to: "/" });
	},
	component: Outlet,
});

const workspaceHomeRoute = createRoute({ getParentRoute: () => workspaceRoute, path: "/", component: HomePage });

const connectionsRoute = createRoute({ getParentRoute: () => authenticatedRoute, path: "/account/connections", component: ConnectionsPage });

function NotFoundPage() {
	return (
		<main className="content">
			<PageHeader title="Page not found" />
			<p>
				There is no such page here. <Link to="/">Go to the dashboard</Link>.
			</p>
		</main>
	);
}

const administration = administrationRoutes({ root: rootRoute, authenticated: authenticatedRoute, workspace: workspaceRoute });

const routeTree = rootRoute.addChildren([
	signInRoute,
	...administration.root,
	authenticatedRoute.addChildren([
		indexRoute,
		connectionsRoute,
		...administration.authenticated,
		workspaceRoute.addChildren([workspaceHomeRoute, ...assistantRoutes(workspaceRoute), ...knowledgeRoutes(workspaceRoute), ...traceRoutes(workspaceRoute), ...evaluationRoutes(workspaceRoute), ...administration.workspace]),
	]),
]);

export function createAppRouter(queryClient: QueryClient) {
	return createRouter({ routeTree, context: { queryClient }, defaultPreload: "intent", scrollRestoration: true });
}

declare module "@tanstack/react-router" {
	interface Register {
		router: ReturnType<typeof createAppRouter>;
	}
}
