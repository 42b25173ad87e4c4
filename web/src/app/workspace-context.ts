import { useParams } from "@tanstack/react-router";
import { type Session, useSession } from "../features/session/session-query";

export type Role = Session["organizations"][number]["role"];

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** Whether `role` is at least `minimum` (viewer < member < admin < owner), as server/modules/access/permissions.ts ranks them. */
export function roleAtLeast(role: Role | undefined, minimum: Role): boolean {
	return role !== undefined && RANK[role] >= RANK[minimum];
}

export interface CurrentWorkspace {
	organization: Session["organizations"][number];
	workspace: Session["organizations"][number]["workspaces"][number];
	role: Role;
}

/** The workspace the page is about (from the URL), with its organization and the user's role there. */
export function findWorkspace(session: Session | undefined, workspaceId: string | undefined): CurrentWorkspace | undefined {
	if (!session || !workspaceId) return undefined;
	for (const organization of session.organizations) {
		const workspace = organization.workspaces.find((candidate) => candidate.id === workspaceId);
		if (workspace) return { organization, workspace, role: organization.role };
	}
	return undefined;
}

export function useCurrentWorkspace(): CurrentWorkspace | undefined {
	const params = useParams({ strict: false }) as { workspaceId?: string };
	return findWorkspace(useSession(), params.workspaceId);
}

/** The workspace the navigation points into: the page's, else the one last opened, else the first. */
export function useNavigationWorkspace(): CurrentWorkspace | undefined {
	const session = useSession();
	const current = useCurrentWorkspace();
	const { organizationId } = useParams({ strict: false }) as { organizationId?: string };
	if (current) {
		rememberWorkspace(current.workspace.id);
		return current;
	}
	if (!session) return undefined;
	// On an organization's page, a workspace of that organization.
	const organization = organizationId ? session.organizations.find((candidate) => candidate.id === organizationId) : undefined;
	if (organization) {
		const remembered = findWorkspace(session, lastWorkspaceId());
		if (remembered?.organization.id === organization.id) return remembered;
		if (organization.workspaces[0]) return { organization, workspace: organization.workspaces[0], role: organization.role };
	}
	return findWorkspace(session, lastWorkspaceId()) ?? findWorkspace(session, firstWorkspaceId(session));
}

const LAST_WORKSPACE_KEY = "last-workspace";

function rememberWorkspace(workspaceId: string): void {
	try {
		sessionStorage.setItem(LAST_WORKSPACE_KEY, workspaceId);
	} catch {
		// Storage refused (private mode): the first workspace it is.
	}
}

function lastWorkspaceId(): string | undefined {
	try {
		return sessionStorage.getItem(LAST_WORKSPACE_KEY) ?? undefined;
	} catch {
		return undefined;
	}
}

/** For pages under /workspaces/$workspaceId: the route guarantees the workspace exists. */
export function useWorkspace(): CurrentWorkspace {
	const current = useCurrentWorkspace();
	if (!current) throw new Error("This page needs a workspace of yours");
	return current;
}

/** The first workspace the user can open, where `/` sends them. */
export function firstWorkspaceId(session: Session): string | undefined {
	return session.organizations.flatMap((organization) => organization.workspaces)[0]?.id;
}
