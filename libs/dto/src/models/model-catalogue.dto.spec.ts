import { PRICING_KEYS, PRICING_TIER_KEYS } from '@gw/pricing';
import { getMetadataStorage } from 'class-validator';
import { PricingDto, PricingTierDto } from './model-catalogue.dto';

/** The properties a DTO validates: a property without a validator would be stripped by the global pipe. */
function validatedProperties(dto: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  return [...new Set(metadata.map((entry) => entry.propertyName))].sort();
}

describe('PricingDto', () => {
  it('validates exactly the keys of the pricing lib’s Pricing object', () => {
    expect(validatedProperties(PricingDto)).toEqual([...PRICING_KEYS].sort());
  });

  it('validates exactly the keys of a pricing tier', () => {
    expect(validatedProperties(PricingTierDto)).toEqual([...PRICING_TIER_KEYS].sort());
  });
});
