import { expect, it } from 'vitest';
import { readStackConfig } from './config.js';
import { StackError } from './stack-error.js';

it('reads the single stack\'s ports from the environment, defaults where unset', () => {
  expect(readStackConfig({ OSSN_STACK_KAFKA_PORT: '39092', OSSN_STACK_REDIS_PORT: '' }).ports).toEqual({ kafka: 39092, kafkaController: 19093, mongodb: 27018, redis: 16379 });
});

it.each(['2e4', '70000', '0', '19092.5', 'kafka'])('refuses OSSN_STACK_KAFKA_PORT=%j, naming the variable, the range and the value', (value) => {
  const read = () => readStackConfig({ OSSN_STACK_KAFKA_PORT: value });
  expect(read).toThrow(StackError);
  expect(read).toThrow(`OSSN_STACK_KAFKA_PORT must be a port number from 1 to 65535, got '${value}'`);
});
