import { type Environment, EnvironmentSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import type { EntityManager } from "@mikro-orm/postgresql";

export interface EnvironmentView {
	id: string;
	slug: string;
	name: string;
	description: string | null;
	createdAt: string;
	updatedAt: string;
}

export function presentEnvironment(environment: Environment): EnvironmentView {
	return {
		id: environment.id,
		slug: environment.slug,
		name: environment.name,
		description: environment.description,
		createdAt: environment.createdAt.toISOString(),
		updatedAt: environment.updatedAt.toISOString(),
	};
}

export async function findEnvironment(em: EntityManager, workspaceId: string, slug: string): Promise<Environment> {
	const environment = await em.findOne(EnvironmentSchema, { workspace: workspaceId, slug });
	if (!environment) throw AppError.notFound(`Environment '${slug}'`);
	return environment;
}
