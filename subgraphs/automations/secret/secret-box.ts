import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from '../../../platform/config.js';
import { loadOrCreateSecretFile } from '../../../platform/internal-secret.js';

const VERSION = 'v1';

/**
 * Authenticated encryption of team secrets at rest: AES-256-GCM with a random 96-bit nonce per value. The
 * secret's owner ("team/name") is bound as additional data, so a ciphertext copied to another row fails to open.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The master key from TRELLIS_SECRET_KEY, or a key file generated (0600) in the data directory. */
  static async load(fromEnv: string | undefined, dataDir: string): Promise<SecretBox> {
    const raw = await loadOrCreateSecretFile(dataDir, 'secret-key', fromEnv);
    return new SecretBox(parseKey(raw));
  }

  static fromKey(key: Buffer): SecretBox {
    if (key.length !== 32) throw new ConfigError('the secret master key must be 32 bytes');
    return new SecretBox(key);
  }

  seal(plaintext: string, owner: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(owner, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, owner: string): string {
    const [version, encoded] = sealed.split(':');
    if (version !== VERSION || !encoded) throw new Error('unknown secret format');
    const raw = Buffer.from(encoded, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(owner, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

function parseKey(raw: string): Buffer {
  const trimmed = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const base64 = Buffer.from(trimmed, 'base64');
  if (base64.length === 32) return base64;
  throw new ConfigError('TRELLIS_SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
}
