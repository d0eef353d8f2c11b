// Where the emulator's /_emulator/ admin routes answer: on a loopback bind, or anywhere with --admin.

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and localhost. */
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host.trim());
}

/** The admin routes answer on a loopback bind, or anywhere with --admin; elsewhere they are unknown routes (404). */
export function adminAllowed(host: string, adminFlag: boolean): boolean {
  return adminFlag || isLoopbackHost(host);
}
