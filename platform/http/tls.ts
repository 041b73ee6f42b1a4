import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { ConfigError, type PlatformConfig } from '../config.js';

export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
  /** The certificate file clients should trust (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, curl --cacert). */
  certFile: string;
}

/** Where the generated self-signed certificate lives in the data directory. */
export function selfSignedDir(dataDir: string): string {
  return path.join(dataDir, 'tls');
}

/**
 * The HTTPS listener's certificate and key, or undefined when the platform serves plain HTTP. A self-signed
 * certificate is generated on first use and kept, so clients told to trust it keep trusting it across restarts.
 */
export async function loadTlsCredentials(config: Pick<PlatformConfig, 'tls' | 'dataDir' | 'host'>): Promise<TlsCredentials | undefined> {
  const tls = config.tls;
  if (!tls) return undefined;
  if (tls.kind === 'files') {
    const [cert, key] = await Promise.all([readTlsFile(tls.certFile, 'TRELLIS_TLS_CERT_FILE'), readTlsFile(tls.keyFile, 'TRELLIS_TLS_KEY_FILE')]);
    return { cert, key, certFile: tls.certFile };
  }
  const dir = selfSignedDir(config.dataDir);
  const existing = await readSelfSigned(dir);
  if (existing) return existing;
  await createSelfSigned(dir, config.host);
  const created = await readSelfSigned(dir);
  if (!created) throw new Error(`the self-signed certificate in ${dir} could not be read back`);
  return created;
}

async function readTlsFile(file: string, variable: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new ConfigError(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

async function readSelfSigned(dir: string): Promise<TlsCredentials | undefined> {
  const certFile = path.join(dir, 'cert.pem');
  try {
    const [cert, key] = await Promise.all([readFile(certFile), readFile(path.join(dir, 'key.pem'))]);
    return { cert, key, certFile };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Generates the pair into a directory of this call's own, then renames it into place: processes starting together
 * (one per core) race here, and rename() of a directory onto an existing non-empty one fails, so exactly one pair
 * wins and no process ever reads a half-written one.
 */
async function createSelfSigned(dir: string, host: string): Promise<void> {
  const names = new Set(['localhost', os.hostname()]);
  const ips = new Set(['127.0.0.1', '::1']);
  if (host && host !== '0.0.0.0' && host !== '::') (/^[\d.:]+$/.test(host) ? ips : names).add(host);
  const pems = await generate([{ name: 'commonName', value: 'Trellis (self-signed, local use)' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * 24 * 3600 * 1000),
    extensions: [
      // A CA certificate of its own: trusted as a root (NODE_EXTRA_CA_CERTS, certifi bundles) it verifies itself.
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...[...names].map((value) => ({ type: 2 as const, value })), ...[...ips].map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  await mkdir(path.dirname(dir), { recursive: true });
  const staging = `${dir}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await mkdir(staging, { mode: 0o700 });
  try {
    await writeFile(path.join(staging, 'key.pem'), pems.private, { mode: 0o600 });
    await writeFile(path.join(staging, 'cert.pem'), pems.cert, { mode: 0o644 });
    await rename(staging, dir).catch((error: NodeJS.ErrnoException) => {
      // Another process put its pair in place first: use theirs.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
