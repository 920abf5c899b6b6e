import type { ProjectorConfig } from '../config/config.js';

/**
 * The consumer group that keeps `version` current: each version has its own, so a rebuild reads
 * the topic from its beginning while the live version's group goes on. OSSN_CONSUMER_GROUP names
 * the configured version's group; other versions take its stem with their own `-v<N>`.
 */
export function consumerGroupFor(config: Pick<ProjectorConfig, 'consumerGroup' | 'store'>, version: number): string {
  const configured = config.store.readModelVersion;
  if (version === configured) return config.consumerGroup;
  const suffix = `-v${configured}`;
  const stem = config.consumerGroup.endsWith(suffix) ? config.consumerGroup.slice(0, -suffix.length) : config.consumerGroup;
  return `${stem}-v${version}`;
}

/** The projector's configuration for keeping `version` current; a rebuild carries change times over from `previous`, the live version. */
export function configForVersion(config: ProjectorConfig, version: number, previous?: number): ProjectorConfig {
  return {
    ...config,
    store: { ...config.store, readModelVersion: version },
    consumerGroup: consumerGroupFor(config, version),
    previousReadModelVersion: previous,
  };
}
