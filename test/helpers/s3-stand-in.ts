import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

/**
 * A local stand-in for an S3-compatible object store, speaking the REST subset our driver uses:
 * PUT/GET/HEAD/DELETE object, ListObjectsV2 and DeleteObjects on one bucket, path-style.
 * Every request must carry a valid AWS Signature V4, in the Authorization header (SDK calls) or
 * in the query (presigned URLs, with X-Amz-Expires enforced), over exactly the headers it signed.
 *
 * Why not an emulator from the registry: s3rver 3.7.1 installs and runs on Node 20, but it does
 * not verify V4 signatures at all ("Signature version 4 calculation is unimplemented" in its
 * authentication middleware), so it would accept a PUT with another Content-Type, the very
 * thing the presigned URL must refuse. MinIO and LocalStack are not installable from npm or Debian.
 */
export interface S3StandIn {
	endpoint: string;
	bucket: string;
	region: string;
	accessKeyId: string;
	secretAccessKey: string;
	objects: Map<string, { body: Buffer; contentType: string }>;
	/** Every request, with the status answered, for assertions on what the driver sent. */
	requests: { method: string; path: string; status: number; error?: string }[];
	close(): Promise<void>;
}

const SERVICE = "s3";

/** RFC 3986 unreserved characters stay; everything else is %XX (SigV4's UriEncode). */
function uriEncode(value: string): string {
	return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(data: string | Buffer): string {
	return createHash("sha256").update(data).digest("hex");
}

function hmac(key: Buffer | string, data: string): Buffer {
	return createHmac("sha256", key).update(data).digest();
}

/** yyyyMMddTHHmmssZ -> Date */
function parseAmzDate(value: string): Date | null {
	const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
	if (!match) return null;
	const [, year, month, day, hour, minute, second] = match.map(Number);
	return new Date(Date.UTC(year, month - 1, day, hour, minute, second));
}

class S3Failure extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

export async function startS3StandIn(options: { bucket?: string; region?: string } = {}): Promise<S3StandIn> {
	const bucket = options.bucket ?? "knowledge-test";
	const region = options.region ?? "us-east-1";
	const accessKeyId = "STANDINACCESSKEY";
	const secretAccessKey = "stand-in-secret-access-key";
	const objects = new Map<string, { body: Buffer; contentType: string }>();
	const requests: S3StandIn["requests"] = [];

	/** Verifies the request's SigV4 signature (AWS "Signature Version 4 signing process"). */
	function verifySignature(request: IncomingMessage, rawPath: string, rawQuery: string, body: Buffer): void {
		const query = rawQuery
			? rawQuery.split("&").map((pair) => {
					const [name, value = ""] = pair.split("=");
					return [decodeURIComponent(name), decodeURIComponent(value)] as const;
				})
			: [];
		const queryValue = (name: string) => query.find(([key]) => key === name)?.[1];
		let credential: string;
		let signedHeaders: string;
		let signature: string;
		let amzDate: string;
		let payloadHash: string;
		if (queryValue("X-Amz-Algorithm")) {
			if (queryValue("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") throw new S3Failure(400, "AuthorizationQueryParametersError", "Unsupported algorithm");
			credential = queryValue("X-Amz-Credential") ?? "";
			signedHeaders = queryValue("X-Amz-SignedHeaders") ?? "";
			signature = queryValue("X-Amz-Signature") ?? "";
			amzDate = queryValue("X-Amz-Date") ?? "";
			const expires = Number(queryValue("X-Amz-Expires"));
			const signedAt = parseAmzDate(amzDate);
			if (!signedAt || !Number.isInteger(expires) || expires < 1 || expires > 604_800) {
				throw new S3Failure(400, "AuthorizationQueryParametersError", "X-Amz-Date and X-Amz-Expires (1..604800) are required");
			}
			if (signedAt.getTime() + expires * 1000 < Date.now()) throw new S3Failure(403, "AccessDenied", "Request has expired");
			payloadHash = "UNSIGNED-PAYLOAD";
		} else {
			const authorization = request.headers.authorization ?? "";
			const match = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(authorization);
			if (!match) throw new S3Failure(403, "AccessDenied", "A SigV4 Authorization header is required");
			[, credential, signedHeaders, signature] = match;
			amzDate = String(request.headers["x-amz-date"] ?? "");
			const signedAt = parseAmzDate(amzDate);
			// S3 refuses requests signed more than 15 minutes away from its clock.
			if (!signedAt || Math.abs(signedAt.getTime() - Date.now()) > 15 * 60_000) throw new S3Failure(403, "RequestTimeTooSkewed", "Bad x-amz-date");
			payloadHash = String(request.headers["x-amz-content-sha256"] ?? "");
			if (/^[0-9a-f]{64}$/.test(payloadHash) && payloadHash !== sha256Hex(body)) {
				throw new S3Failure(400, "XAmzContentSHA256Mismatch", "The body does not match x-amz-content-sha256");
			}
		}
		const [keyId, date, scopeRegion, service, terminator] = credential.split("/");
		if (keyId !== accessKeyId) throw new S3Failure(403, "InvalidAccessKeyId", "Unknown access key");
		if (scopeRegion !== region || service !== SERVICE || terminator !== "aws4_request" || !amzDate.startsWith(date)) {
			throw new S3Failure(403, "SignatureDoesNotMatch", "Bad credential scope");
		}
		const headerNames = signedHeaders.split(";");
		if (!headerNames.includes("host")) throw new S3Failure(403, "SignatureDoesNotMatch", "host must be signed");
		const canonicalHeaders = headerNames
			.map((name) => {
				const value = request.headers[name];
				const joined = Array.isArray(value) ? value.join(",") : (value ?? "");
				return `${name}:${joined.trim().replace(/\s+/g, " ")}\n`;
			})
			.join("");
		const canonicalQuery = query
			.filter(([name]) => name !== "X-Amz-Signature")
			.map(([name, value]) => [uriEncode(name), uriEncode(value)])
			.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
			.map(([name, value]) => `${name}=${value}`)
			.join("&");
		// S3 does not normalise the path and encodes it once: the key's segments as sent.
		const canonicalPath = rawPath
			.split("/")
			.map((segment) => uriEncode(decodeURIComponent(segment)))
			.join("/");
		const canonicalRequest = [request.method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join("\n");
		const scope = `${date}/${region}/${SERVICE}/aws4_request`;
		const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
		const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), SERVICE), "aws4_request");
		const expected = Buffer.from(createHmac("sha256", signingKey).update(stringToSign).digest("hex"));
		const given = Buffer.from(signature);
		if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
			throw new S3Failure(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided");
		}
	}

	function handle(request: IncomingMessage, body: Buffer, response: ServerResponse): number {
		const url = request.url ?? "/";
		const questionMark = url.indexOf("?");
		const rawPath = questionMark === -1 ? url : url.slice(0, questionMark);
		const rawQuery = questionMark === -1 ? "" : url.slice(questionMark + 1);
		verifySignature(request, rawPath, rawQuery, body);
		const search = new URLSearchParams(rawQuery);
		const [, bucketName, ...keyParts] = rawPath.split("/");
		if (bucketName !== bucket) throw new S3Failure(404, "NoSuchBucket", "The specified bucket does not exist");
		const key = keyParts.map(decodeURIComponent).join("/");
		const xml = (status: number, text: string) => {
			response.writeHead(status, { "content-type": "application/xml" }).end(`<?xml version="1.0" encoding="UTF-8"?>\n${text}`);
			return status;
		};
		if (!key) {
			if (request.method === "GET" && search.get("list-type") === "2") {
				const prefix = search.get("prefix") ?? "";
				const keys = [...objects.keys()].filter((candidate) => candidate.startsWith(prefix)).sort();
				const contents = keys
					.map((candidate) => `<Contents><Key>${candidate}</Key><Size>${objects.get(candidate)?.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`)
					.join("");
				return xml(
					200,
					`<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
				);
			}
			if (request.method === "POST" && search.has("delete")) {
				const deleted = [...body.toString("utf8").matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1]);
				for (const candidate of deleted) objects.delete(candidate);
				return xml(200, `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>`);
			}
			throw new S3Failure(501, "NotImplemented", "Not supported by the stand-in");
		}
		const stored = objects.get(key);
		switch (request.method) {
			case "PUT": {
				const declared = request.headers["content-length"];
				if (declared !== undefined && Number(declared) !== body.length) throw new S3Failure(400, "IncompleteBody", "Content-Length does not match the body");
				objects.set(key, { body, contentType: String(request.headers["content-type"] ?? "binary/octet-stream") });
				response.writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"` }).end();
				return 200;
			}
			case "GET":
			case "HEAD": {
				if (!stored) {
					if (request.method === "HEAD") {
						response.writeHead(404).end();
						return 404;
					}
					throw new S3Failure(404, "NoSuchKey", "The specified key does not exist.");
				}
				response.writeHead(200, { "content-type": stored.contentType, "content-length": stored.body.length });
				response.end(request.method === "GET" ? stored.body : undefined);
				return 200;
			}
			case "DELETE":
				objects.delete(key);
				response.writeHead(204).end();
				return 204;
			default:
				throw new S3Failure(405, "MethodNotAllowed", "Method not allowed");
		}
	}

	const server = createServer((request, response) => {
		const parts: Buffer[] = [];
		request.on("data", (part: Buffer) => parts.push(part));
		request.on("end", () => {
			const entry: S3StandIn["requests"][number] = { method: request.method ?? "", path: request.url ?? "", status: 0 };
			requests.push(entry);
			try {
				entry.status = handle(request, Buffer.concat(parts), response);
			} catch (error) {
				const failure = error instanceof S3Failure ? error : new S3Failure(500, "InternalError", String(error));
				entry.status = failure.status;
				entry.error = failure.code;
				response.writeHead(failure.status, { "content-type": "application/xml" });
				// HEAD answers carry no body; the SDK then only sees the status.
				response.end(request.method === "HEAD" ? undefined : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${failure.code}</Code><Message>${failure.message}</Message></Error>`);
			}
		});
	});
	const loopback = await listenOnLoopback(server);
	return {
		endpoint: loopback.origin,
		bucket,
		region,
		accessKeyId,
		secretAccessKey,
		objects,
		requests,
		close: () => loopback.close(),
	};
}
