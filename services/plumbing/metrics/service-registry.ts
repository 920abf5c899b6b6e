import { Registry, collectDefaultMetrics } from 'prom-client';
import { registerBuildInfo } from './build-info.js';

/**
 * A service's registry of its own (a second app in one process gets its own): prom-client's
 * process and Node.js metrics, unprefixed as stock Node.js dashboards and alerts expect them
 * (Prometheus' job label tells the services apart), and ossn_build_info.
 */
export function serviceRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerBuildInfo(registry);
  return registry;
}
