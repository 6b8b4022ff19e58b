// redis-errors (the error classes ioredis throws; ioredis re-exports only
// ReplyError) ships no type declarations. It is CommonJS: Node's ESM loader
// exposes module.exports as the default export only.
declare module 'redis-errors' {
  export class RedisError extends Error {}
  export class ParserError extends RedisError {}
  export class ReplyError extends RedisError {}
  export class AbortError extends RedisError {}
  export class InterruptError extends AbortError {}
  const errors: {
    RedisError: typeof RedisError;
    ParserError: typeof ParserError;
    ReplyError: typeof ReplyError;
    AbortError: typeof AbortError;
    InterruptError: typeof InterruptError;
  };
  export default errors;
}
