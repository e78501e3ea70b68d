// One prompt, print the answer's text (a failed turn fails the program with its reason, exit code 1).
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../../src/Claude.ts"
import { ClaudeNode } from "../../src/node.ts"

const program = Claude.query("What is the capital of France?").pipe(Effect.flatMap((result) => Console.log(result.result)))
ClaudeNode.runMain(program)
