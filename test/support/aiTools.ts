/**
 * `effect/ai` tools the toolkit tests share: an admin toolkit with a tool that needs approval, and
 * a lookup whose result holds a token the model must not read (`toModelOutput`).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"

export const DeleteRepo = Tool.make("DeleteRepo", {
  description: "Deletes a repository",
  parameters: Schema.Struct({ name: Schema.String }),
  success: Schema.String,
  needsApproval: true
})
export const ListRepos = Tool.make("ListRepos", { description: "Lists repositories", success: Schema.String })
export const Admin = Toolkit.make(DeleteRepo, ListRepos)
export const AdminHandlers = Admin.toLayer({
  DeleteRepo: ({ name }) => Effect.succeed(`deleted ${name}`),
  ListRepos: () => Effect.succeed("a, b")
})

export const Lookup = Tool.make("Lookup", {
  description: "Looks a user up",
  parameters: Schema.Struct({ id: Schema.String }),
  success: Schema.Struct({ name: Schema.String, apiToken: Schema.String }),
  // The model reads the name alone, never the token.
  toModelOutput: (user) => [Prompt.textPart({ text: `User ${user.name}` })]
})
export const lookupResult = (id: string) => ({ name: `ada-${id}`, apiToken: "secret-token-123" })
export const Users = Toolkit.make(Lookup)
export const UsersHandlers = Users.toLayer({ Lookup: ({ id }) => Effect.succeed(lookupResult(id)) })
