import { useParams } from "@tanstack/react-router";
import type { Role } from "../../app/workspace-context";
import { type Session, useSession } from "../session/session-query";

export interface CurrentOrganization {
	organization: Session["organizations"][number];
	role: Role;
}

/** For pages under /organizations/$organizationId: the route guarantees the organization is one of the user's. */
export function useOrganization(): CurrentOrganization {
	const { organizationId } = useParams({ strict: false }) as { organizationId?: string };
	const organization = useSession()?.organizations.find((candidate) => candidate.id === organizationId);
	if (!organization) throw new Error("This page needs an organization of yours");
	return { organization, role: organization.role };
}
