import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { AppError } from "./app-error";

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keyLength: number, options: object) => Promise<Buffer>;

/** OWASP's scrypt floor (N=2^17, r=8, p=1); parameters are stored with the hash so they can rise later. */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, keyLength: 32 };
/** One computation needs 128 * N * r bytes (128 MiB at the floor); room for parameters raised once. */
const SCRYPT_MAX_MEMORY = 256 * 1024 * 1024;

/** A hash with the current parameters that no password matches: checked for unknown emails so they take as long as known ones. */
const UNMATCHABLE_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$AAAAAAAAAAAAAAAAAAAAAA$${"A".repeat(43)}`;

async function hashWithScrypt(password: string): Promise<string> {
	const salt = randomBytes(16);
	const key = await scryptAsync(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT_MAX_MEMORY });
	return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

async function verifyWithScrypt(password: string, stored: string): Promise<boolean> {
	const [scheme, n, r, p, salt, expected] = stored.split("$");
	if (scheme !== "scrypt" || !salt || !expected) return false;
	const expectedKey = Buffer.from(expected, "base64url");
	const key = await scryptAsync(password, Buffer.from(salt, "base64url"), expectedKey.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT_MAX_MEMORY });
	return timingSafeEqual(key, expectedKey);
}

export interface PasswordHashingLimits {
	/** scrypt computations at once in this process: each holds one of libuv's threads (4 unless UV_THREADPOOL_SIZE says otherwise) and 128 MiB. */
	concurrency: number;
	/** Passwords that may wait for a turn; one more is refused with RATE_LIMITED. */
	queue: number;
}

export const DEFAULT_PASSWORD_HASHING_LIMITS: PasswordHashingLimits = { concurrency: 1, queue: 8 };

/** A place in the password-hashing line: at most one computation, then released (twice is harmless). */
export interface PasswordTurn {
	/** Whether `password` matches `stored`; null (no such user) costs the same and never matches. */
	verify(password: string, stored: string | null): Promise<boolean>;
	hash(password: string): Promise<string>;
	release(): void;
}

/**
 * The one way a process hashes passwords. scrypt runs on libuv's thread pool, which also serves
 * token verification (WebCrypto), DNS lookups and file access: unbounded, a burst of sign-ins
 * queues every one of those behind seconds of hashing. So at most `concurrency` computations run
 * and at most `queue` wait; a caller beyond that is refused at once (RATE_LIMITED, Retry-After)
 * rather than queued. A place is taken before the caller does anything else for the password (the
 * sign-in throttle's claim), so nothing is counted for a sign-in that was never checked.
 */
export class PasswordHashing {
	private held = 0;
	private running = 0;
	private readonly waiting: (() => void)[] = [];
	/** Recent duration of one computation, for Retry-After; scrypt at the floor takes about half a second. */
	private recentMs = 500;

	constructor(private readonly limits: PasswordHashingLimits) {}

	/** A place in line, or RATE_LIMITED when the line is full. */
	reserve(): PasswordTurn {
		if (this.held >= this.limits.concurrency + this.limits.queue) {
			const seconds = Math.max(1, Math.ceil(((this.held / this.limits.concurrency) * this.recentMs) / 1000));
			throw new AppError("RATE_LIMITED", `The server is busy checking other sign-ins. Try again in ${seconds} second${seconds === 1 ? "" : "s"}.`, {
				headers: { "Retry-After": String(seconds) },
			});
		}
		this.held += 1;
		let released = false;
		let used = false;
		const compute = async <T>(work: () => Promise<T>): Promise<T> => {
			if (released || used) throw new Error("a password turn computes once, before it is released");
			used = true;
			await this.start();
			const started = performance.now();
			try {
				return await work();
			} finally {
				this.recentMs = Math.round((this.recentMs * 3 + (performance.now() - started)) / 4);
				this.finish();
			}
		};
		return {
			verify: (password, stored) => compute(() => verifyWithScrypt(password, stored ?? UNMATCHABLE_HASH)),
			hash: (password) => compute(() => hashWithScrypt(password)),
			release: () => {
				if (released) return;
				released = true;
				this.held -= 1;
			},
		};
	}

	async hash(password: string): Promise<string> {
		const turn = this.reserve();
		try {
			return await turn.hash(password);
		} finally {
			turn.release();
		}
	}

	private start(): Promise<void> {
		if (this.running < this.limits.concurrency) {
			this.running += 1;
			return Promise.resolve();
		}
		// The finishing computation hands its slot over: `running` stays the same.
		return new Promise((resolve) => this.waiting.push(resolve));
	}

	private finish(): void {
		const next = this.waiting.shift();
		if (next) next();
		else this.running -= 1;
	}
}

/** One-shot crypto.hash: no Hash object per call (API keys are hashed on every request). */
export function sha256Hex(value: string): string {
	return hash("sha256", value, "hex");
}

/**
 * AES-256-GCM for secrets we must read back (provider credentials). The key is derived from
 * SECRET_KEY; the format carries a version so the scheme can change without a flag day.
 */
export class SecretBox {
	private readonly key: Buffer;

	constructor(secretKey: string) {
		this.key = hash("sha256", `secret-box:${secretKey}`, "buffer");
	}

	/** A key for one purpose (cookie signing, CSRF tokens), derived from SECRET_KEY so every instance agrees on it. */
	deriveKey(purpose: string): Buffer {
		return createHmac("sha256", this.key).update(`derived:${purpose}`).digest();
	}

	encrypt(plaintext: string): string {
		const iv = randomBytes(12);
		const cipher = createCipheriv("aes-256-gcm", this.key, iv);
		const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
		const tag = cipher.getAuthTag();
		return ["v1", iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(":");
	}

	decrypt(sealed: string): string {
		const [version, iv, tag, ciphertext] = sealed.split(":");
		if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("Unrecognised secret format");
		const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
		decipher.setAuthTag(Buffer.from(tag, "base64url"));
		return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
	}
}
