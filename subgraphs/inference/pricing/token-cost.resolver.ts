import { Arg, Ctx, FieldResolver, Float, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { InferenceServices } from '../services.js';
import { COST_DESCRIPTION, ModelPriceInfo, ModelTokenUsageCost, TokenUsageCost } from './token-cost.type.js';
import type { ResolvedPrice } from './price-table.js';

export function toModelPriceInfo(price: ResolvedPrice | null): ModelPriceInfo | null {
  return price && Object.assign(new ModelPriceInfo(), { inputPerMillion: price.input_per_million, outputPerMillion: price.output_per_million, source: price.source });
}

/** Cost of one model's tokens. The counts arrive in the entity's representation: nothing is read but the price table. */
@Resolver(() => ModelTokenUsageCost)
export class ModelTokenUsageCostResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => Float, { nullable: true, description: COST_DESCRIPTION })
  cost(@Root() usage: ModelTokenUsageCost): number | null {
    return this.services.prices.costOf(usage.model, usage.inputTokens, usage.outputTokens);
  }

  @FieldResolver(() => ModelPriceInfo, { nullable: true, description: "The model's price per million tokens; null when it has none" })
  price(@Root() usage: ModelTokenUsageCost): ModelPriceInfo | null {
    return toModelPriceInfo(this.services.prices.priceOf(usage.model));
  }
}

@Resolver(() => TokenUsageCost)
export class TokenUsageCostResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => Float, { nullable: true, description: `Cost of every model's tokens together; ${COST_DESCRIPTION.replace('null when the model has', 'null when a model that used tokens has')}` })
  cost(@Root() usage: TokenUsageCost): number | null {
    return this.services.prices.totalCostOf(usage.byModel);
  }
}

/** The price table itself, for pages that explain a cost. */
@Resolver()
export class ModelPriceResolver {
  constructor(private readonly services: InferenceServices) {}

  @Query(() => ModelPriceInfo, { nullable: true, description: 'What a model name costs per million tokens (a catalog id or a provider model id); null when it has no price' })
  modelPrice(@Arg('model', () => String, { description: 'The model name, e.g. gpt-4o-mini-2024-07-18' }) model: string, @Ctx() context: GraphQLContext): ModelPriceInfo | null {
    requirePrincipal(context);
    return toModelPriceInfo(this.services.prices.priceOf(model));
  }
}
