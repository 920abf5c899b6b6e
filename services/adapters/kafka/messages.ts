/** A consumed record, as the projector sees it: no kafkajs types beyond this folder. */
export interface SourceMessage {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
}

export interface OutgoingMessage {
  key: string | Buffer | null;
  value: string | Buffer | null;
  headers?: Record<string, string>;
}
