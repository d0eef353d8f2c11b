// A TLS certificate this system does not trust. Trying again cannot mend it and "check your connection"
// is no help: the one line names what is wrong with the certificate and what to do about it.

const UNKNOWN_CA =
  'a certificate signed by a certificate authority this system does not trust (a private CA, or a proxy that inspects TLS); ' +
  'give that CA to tds with NODE_EXTRA_CA_CERTS=/path/to/ca.pem';

const PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT:
    'a self-signed certificate, which this system does not trust; if it is the right one, trust it with NODE_EXTRA_CA_CERTS=/path/to/cert.pem',
  SELF_SIGNED_CERT_IN_CHAIN: UNKNOWN_CA,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNKNOWN_CA,
  UNABLE_TO_GET_ISSUER_CERT: UNKNOWN_CA,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNKNOWN_CA,
  CERT_HAS_EXPIRED: "a certificate that has expired; the server's owner must renew it (or this machine's clock is wrong)",
  CERT_NOT_YET_VALID: "a certificate that is not valid yet; check this machine's clock",
  CERT_REVOKED: "a certificate that has been revoked; the server's owner must replace it",
};

/** Whether a transport error's code is a certificate that failed verification (never worth a retry). */
export function isCertificateCode(code: string | undefined): boolean {
  return code !== undefined && (code in PROBLEMS || code === 'ERR_TLS_CERT_ALTNAME_INVALID' || /^(CERT_|ERR_TLS_CERT)/.test(code));
}

/**
 * `service.example:443 presents a certificate for other.example, not for service.example
 * (ERR_TLS_CERT_ALTNAME_INVALID); use the host name the certificate is for in the URL`.
 * `target` is `host:port` (and the proxy, if any); `error` is the transport error.
 */
export function certificateProblem(code: string, target: string, error: unknown): string {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = certificateNames(error);
    const host = hostOf(error);
    const named = names.length > 0 ? `a certificate for ${names.join(', ')}` : 'a certificate for another name';
    return (
      `${target} presents ${named}${host ? `, not for ${host}` : ''} (${code}); ` +
      `use the host name the certificate is for in the URL${names[0] ? ` (${names[0]})` : ''}, or ask the server's owner for a certificate for this name`
    );
  }
  return `${target} presents ${PROBLEMS[code] ?? `a certificate this system does not accept; check the server's certificate`} (${code})`;
}

/** The DNS names (else the common name) of the certificate a host-name check refused. */
function certificateNames(error: unknown): string[] {
  const cert = findField(error, 'cert') as { subjectaltname?: string; subject?: { CN?: string } } | undefined;
  const names = (cert?.subjectaltname ?? '')
    .split(/,\s*/)
    .filter((entry) => entry.startsWith('DNS:') || entry.startsWith('IP Address:'))
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
  if (names.length === 0 && cert?.subject?.CN) names.push(cert.subject.CN);
  return names.slice(0, 3);
}

function hostOf(error: unknown): string | undefined {
  const host = findField(error, 'host');
  return typeof host === 'string' ? host : undefined;
}

/** A field of the error or of one of its causes (undici may wrap the socket's error). */
function findField(error: unknown, name: string): unknown {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 4; depth += 1) {
    const value = (current as Record<string, unknown>)[name];
    if (value !== undefined) return value;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
