import {
	DeleteObjectCommand,
	DeleteObjectsCommand,
	GetObjectCommand,
	HeadObjectCommand,
	ListObjectsV2Command,
	PutObjectCommand,
	S3Client,
	S3ServiceException,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { ObjectStorage, UploadTarget } from "./object-storage";

export interface S3StorageOptions {
	bucket: string;
	region: string;
	/** For R2, MinIO or a local server; unset means AWS S3 itself. */
	endpoint?: string;
	/** Unset: the SDK's default chain (environment, shared files, instance role). */
	accessKeyId?: string;
	secretAccessKey?: string;
	/** Path-style URLs (`endpoint/bucket/key`): what MinIO and most local servers expect. */
	forcePathStyle: boolean;
}

/**
 * Document bytes in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO). Presigned PUT URLs
 * point at the bucket itself, so uploads never pass through this server; `complete` then checks
 * the object with HeadObject.
 */
export class S3Storage implements ObjectStorage {
	private readonly client: S3Client;

	constructor(private readonly options: S3StorageOptions) {
		this.client = new S3Client({
			region: options.region,
			endpoint: options.endpoint,
			forcePathStyle: options.forcePathStyle,
			credentials:
				options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
			// Since SDK 3.729 every PutObject carries a CRC32 by default. In a presigned URL that
			// checksum is the empty body's (x-amz-checksum-crc32=AAAAAA==, baked in at signing), so S3
			// would reject the real upload; and several S3-compatible stores reject the new headers.
			requestChecksumCalculation: "WHEN_REQUIRED",
			responseChecksumValidation: "WHEN_REQUIRED",
		});
	}

	async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
		await this.client.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: bytes, ContentType: contentType }));
	}

	async get(key: string): Promise<Buffer> {
		const response = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
		if (!response.Body) throw new Error(`S3 returned no body for ${key}`);
		return Buffer.from(await response.Body.transformToByteArray());
	}

	async size(key: string): Promise<number | null> {
		try {
			const response = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
			return response.ContentLength ?? 0;
		} catch (error) {
			// HEAD answers have no body, so a missing object surfaces as a bare 404 (NotFound).
			if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return null;
			throw error;
		}
	}

	async delete(key: string): Promise<void> {
		// Idempotent in S3: deleting a missing key succeeds.
		await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
	}

	async deletePrefix(prefix: string): Promise<void> {
		// A bucket has no directories: list the keys under the prefix and delete them in batches of
		// at most 1000, the DeleteObjects limit (and the ListObjectsV2 page size).
		let continuationToken: string | undefined;
		do {
			const page = await this.client.send(
				new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: prefix, ContinuationToken: continuationToken }),
			);
			const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
			if (keys.length > 0) {
				const result = await this.client.send(new DeleteObjectsCommand({ Bucket: this.options.bucket, Delete: { Objects: keys, Quiet: true } }));
				if (result.Errors?.length) throw new Error(`S3 could not delete ${result.Errors.length} objects under ${prefix}: ${result.Errors[0].Message}`);
			}
			continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
		} while (continuationToken);
	}

	async createUploadTarget(input: { key: string; contentType: string; byteSize: number; expiresInSeconds: number }): Promise<UploadTarget> {
		const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
		const command = new PutObjectCommand({ Bucket: this.options.bucket, Key: input.key, ContentType: input.contentType, ContentLength: input.byteSize });
		const url = await getSignedUrl(this.client, command, {
			expiresIn: input.expiresInSeconds,
			signingDate: signedAt,
			// Signed headers are part of the SigV4 signature (not query parameters), so S3 refuses a PUT
			// with another Content-Type or size: the grant is one object, one type, one exact size.
			signableHeaders: new Set(["content-type", "content-length"]),
		});
		return {
			url,
			headers: { "Content-Type": input.contentType, "Content-Length": String(input.byteSize) },
			expiresAt: new Date(signedAt.getTime() + input.expiresInSeconds * 1000),
		};
	}

	close(): void {
		this.client.destroy();
	}
}
