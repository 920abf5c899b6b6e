// Runs scripts/python/zeep_client.py: one SOAP call made by zeep, the answer back as JSON.
import { spawn } from 'node:child_process';
import { ZEEP_CLIENT_SCRIPT } from './venv.js';

export interface ZeepFault {
  faultcode: string;
  faultstring: string;
}

/** zeep's answer (serialize_object as JSON), or the SOAP fault it raised. */
export type ZeepOutcome = { answer: unknown } | { fault: ZeepFault };

/**
 * Calls `operation` of the service described at `wsdlUrl` with zeep. The arguments go over stdin,
 * so a password never shows in a process list. Rejects when zeep fails other than by a fault.
 */
export function callZeep(python: string, wsdlUrl: string, operation: string, args: Record<string, unknown>, timeoutMs = 120_000): Promise<ZeepOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [ZEEP_CLIENT_SCRIPT, wsdlUrl, operation], { stdio: ['pipe', 'pipe', 'pipe'] });
    // Our own timer, not spawn's `timeout`: that one is left running when the command never starts.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    timer.unref();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.on('error', () => undefined); // the process may end before reading its arguments
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const failed = () => new Error(`zeep ${operation} ended with ${signal ? `signal ${signal}` : `code ${code}`}: ${stderr.trim().split('\n').slice(-8).join('\n')}`);
      try {
        if (code === 0) resolve({ answer: JSON.parse(stdout) as unknown });
        else if (code === 2) resolve({ fault: JSON.parse(stdout) as ZeepFault });
        else reject(failed());
      } catch {
        reject(failed());
      }
    });
    child.stdin.end(JSON.stringify(args));
  });
}
