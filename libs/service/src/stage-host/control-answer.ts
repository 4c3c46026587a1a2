import type { Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';

/** What the asker of a control verb reads when the process failed rather than refused. */
export const INTERNAL_ERROR = 'Internal server error';

/**
 * A control verb's answer, as Nest's RPC exception filter gave it to decorated handlers: an
 * `RpcException` is the stage refusing the request, and the asker reads its message (the bus
 * answers `{ok: false, message}`); any other error is a fault of this process, logged here and
 * answered without its details.
 */
export function controlAnswer<I>(logger: Logger, verb: string, answer: (input: I) => unknown): (input: I) => Promise<unknown> {
  return async (input) => {
    try {
      return await answer(input);
    } catch (error) {
      if (error instanceof RpcException) throw error;
      logger.error(`control verb ${verb} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      throw new Error(INTERNAL_ERROR, { cause: error });
    }
  };
}
