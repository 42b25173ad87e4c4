import { evaluationsContract } from "../../../../contract/management/evaluations";
import { addEvaluationCase } from "../../../modules/evaluations/add-evaluation-case";
import { cancelEvaluationRun } from "../../../modules/evaluations/cancel-evaluation-run";
import { createEvaluationDataset } from "../../../modules/evaluations/create-evaluation-dataset";
import { deleteEvaluationCase } from "../../../modules/evaluations/delete-evaluation-case";
import { deleteEvaluationDataset } from "../../../modules/evaluations/delete-evaluation-dataset";
import { getEvaluationDataset } from "../../../modules/evaluations/get-evaluation-dataset";
import { getEvaluationRun } from "../../../modules/evaluations/get-evaluation-run";
import { listEvaluationDatasets } from "../../../modules/evaluations/list-evaluation-datasets";
import { listEvaluationRuns } from "../../../modules/evaluations/list-evaluation-runs";
import { startEvaluationRun } from "../../../modules/evaluations/start-evaluation-run";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** The dashboard's evaluation pages, over the use cases of the MCP evaluation tools (same inputs, contract/inputs/evaluations.ts). */
export function evaluationRoutes(): RouteDefinition[] {
	const e = evaluationsContract;
	return [
		contractRoute(e.listEvaluationDatasets, async ({ context, params, query }) => ({ status: 200, body: await listEvaluationDatasets(context, { ...params, ...query }) })),
		contractRoute(e.createEvaluationDataset, async ({ context, params, body }) => ({ status: 201, body: await createEvaluationDataset(context, { ...params, ...body }) })),
		contractRoute(e.getEvaluationDataset, async ({ context, params }) => ({ status: 200, body: await getEvaluationDataset(context, params) })),
		contractRoute(e.deleteEvaluationDataset, async ({ context, params }) => ({ status: 200, body: await deleteEvaluationDataset(context, params) })),
		contractRoute(e.addEvaluationCase, async ({ context, params, body }) => ({ status: 201, body: await addEvaluationCase(context, { ...params, ...body }) })),
		contractRoute(e.replaceEvaluationCase, async ({ context, params: { caseId, ...params }, body }) => ({
			status: 201,
			body: await addEvaluationCase(context, { ...params, ...body, replacesCaseId: caseId }),
		})),
		contractRoute(e.deleteEvaluationCase, async ({ context, params }) => ({ status: 200, body: await deleteEvaluationCase(context, params) })),
		contractRoute(e.startEvaluationRun, async ({ context, params, body }) => ({ status: 201, body: await startEvaluationRun(context, { ...params, ...body }) })),
		contractRoute(e.listEvaluationRuns, async ({ context, params, query }) => ({ status: 200, body: await listEvaluationRuns(context, { ...params, ...query }) })),
		contractRoute(e.getEvaluationRun, async ({ context, params, query }) => ({ status: 200, body: await getEvaluationRun(context, { ...params, ...query }) })),
		contractRoute(e.cancelEvaluationRun, async ({ context, params }) => ({ status: 200, body: await cancelEvaluationRun(context, params) })),
	];
}
