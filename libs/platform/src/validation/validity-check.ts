import { getMetadataStorage, IS_OPTIONAL, ValidationTypes, type ValidatorOptions } from 'class-validator';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type ValidationMetadata = Parameters<MetadataStorage['addValidationMetadata']>[0];
type ConstraintMetadata = ReturnType<MetadataStorage['getTargetValidatorConstraints']>[number];

/** One property's rules, sorted once the way class-validator sorts them for every object. */
interface PropertyRules {
  name: string;
  /** IsOptional among the conditions: a null or missing value is not checked at all. */
  optional: boolean;
  /** IsOptional and ValidateIf: the property is checked only when all of them hold. */
  conditions: ValidationMetadata[];
  /** IsDefined, checked before the others. */
  defined: ValidationMetadata[];
  rules: ValidationMetadata[];
  nested: ValidationMetadata[];
}

/** The object whose properties are checked, with its class's name as class-validator passes it to constraints. */
interface Target {
  object: object;
  targetName: string;
}

interface ClassRules {
  /**
   * The rules by property as class-validator groups them. Its `whitelist` keeps a property whose
   * entry here is truthy and not empty, read from this plain object as it reads it (so a key such
   * as `constructor` counts as known there, and therefore here too).
   */
  grouped: Record<string, ValidationMetadata[]>;
  properties: PropertyRules[];
  /** Rules this check does not decide (a promise rule, a type it does not know): class-validator must run. */
  undecidable: boolean;
}

const DECIDED_TYPES = new Set<string>([
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.NESTED_VALIDATION,
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.WHITELIST,
  ValidationTypes.IS_DEFINED,
]);

/**
 * Answers whether class-validator would find no fault in an object, from each class's rules sorted
 * once instead of for every object: the same constraint functions, called in the same cases
 * (conditions, IsDefined, `each`, nested objects and arrays, unknown properties), without building
 * an error object for every property of every nested object. It only says "valid": when it finds
 * a fault, or meets what it does not decide (a promise, an async rule, groups), the caller runs
 * class-validator, whose errors are then the answer. With `whitelist` and without
 * `forbidNonWhitelisted` it strips unknown properties as class-validator does.
 */
export class ValidityCheck {
  private readonly rulesByMetadatas = new WeakMap<ValidationMetadata[], ClassRules>();

  constructor(private readonly storage: MetadataStorage = getMetadataStorage()) {}

  passes(object: object, options: ValidatorOptions): boolean {
    if (
      options.groups !== undefined ||
      options.always === true ||
      options.strictGroups === true ||
      options.skipMissingProperties === true ||
      options.skipNullProperties === true ||
      options.skipUndefinedProperties === true
    )
      return false;
    return this.objectPasses(object, undefined, options);
  }

  private objectPasses(object: object, schema: string | undefined, options: ValidatorOptions): boolean {
    const metadatas = this.storage.getTargetValidationMetadatas(
      object.constructor,
      schema as string,
      false,
      false,
      undefined,
    );
    if (metadatas.length === 0 && options.forbidUnknownValues !== false) return false;
    const rules = this.rulesOf(metadatas);
    if (rules.undecidable) return false;
    if (options.whitelist) {
      for (const key of Object.keys(object)) {
        const known = rules.grouped[key];
        if (known && known.length !== 0) continue;
        if (options.forbidNonWhitelisted) return false;
        delete (object as Record<string, unknown>)[key];
      }
    }
    let targetName: string | undefined;
    for (const property of rules.properties) {
      const value: unknown = (object as Record<string, unknown>)[property.name];
      if (property.optional && (value === undefined || value === null)) continue;
      if (value instanceof Promise) return false;
      targetName ??= object.constructor ? object.constructor.name : '';
      if (!this.propertyPasses({ object, targetName }, value, property, options)) return false;
    }
    return true;
  }

  private propertyPasses(
    target: Target,
    value: unknown,
    property: PropertyRules,
    options: ValidatorOptions,
  ): boolean {
    for (const condition of property.conditions) {
      if (!(condition.constraints[0] as (object: object, value: unknown) => boolean)(target.object, value))
        return true;
    }
    if (!this.rulesPass(target, value, property.defined)) return false;
    if (!this.rulesPass(target, value, property.rules)) return false;
    return value === undefined || this.nestedPasses(value, property.nested, options);
  }

  private rulesPass(target: Target, value: unknown, rules: ValidationMetadata[]): boolean {
    for (const rule of rules) {
      if (rule.validateIf && !rule.validateIf(target.object, value)) continue;
      for (const constraint of this.storage.getTargetValidatorConstraints(rule.constraintCls)) {
        if (!constraintHolds(constraint, rule, target, value)) return false;
      }
    }
    return true;
  }

  private nestedPasses(value: unknown, nested: ValidationMetadata[], options: ValidatorOptions): boolean {
    for (const rule of nested) {
      if (Array.isArray(value) || value instanceof Set || value instanceof Map) {
        for (const item of value instanceof Map ? value.values() : value) {
          if (item !== undefined && !this.nestedPasses(item, nested, options)) return false;
        }
      } else if (value instanceof Object) {
        const schema = typeof rule.target === 'string' ? rule.target : rule.target.name;
        if (!this.objectPasses(value, schema, options)) return false;
      } else {
        return false;
      }
    }
    return true;
  }

  private rulesOf(metadatas: ValidationMetadata[]): ClassRules {
    let rules = this.rulesByMetadatas.get(metadatas);
    if (!rules) {
      rules = sortRules(this.storage.groupByPropertyName(metadatas));
      this.rulesByMetadatas.set(metadatas, rules);
    }
    return rules;
  }
}

function sortRules(grouped: Record<string, ValidationMetadata[]>): ClassRules {
  const rules: ClassRules = { grouped, properties: [], undecidable: false };
  for (const [name, metadatas] of Object.entries(grouped)) {
    if (metadatas.length === 0) continue;
    if (metadatas.some((metadata) => !DECIDED_TYPES.has(metadata.type))) rules.undecidable = true;
    const ofType = (type: string) => metadatas.filter((metadata) => metadata.type === type);
    const conditions = ofType(ValidationTypes.CONDITIONAL_VALIDATION);
    rules.properties.push({
      name,
      optional: conditions.some((condition) => condition.name === IS_OPTIONAL),
      conditions,
      defined: ofType(ValidationTypes.IS_DEFINED),
      rules: ofType(ValidationTypes.CUSTOM_VALIDATION),
      nested: ofType(ValidationTypes.NESTED_VALIDATION),
    });
  }
  return rules;
}

/** A constraint on the value, or with `each` on every item of an array, set or map; an async answer is not decided here. */
function constraintHolds(
  constraint: ConstraintMetadata,
  rule: ValidationMetadata,
  target: Target,
  value: unknown,
): boolean {
  if (constraint.async) return false;
  const args = {
    targetName: target.targetName,
    property: rule.propertyName,
    object: target.object,
    value,
    constraints: rule.constraints,
  };
  if (!rule.each || !(Array.isArray(value) || value instanceof Set || value instanceof Map))
    return constraint.instance.validate(value, args) === true;
  for (const item of value instanceof Map ? value.values() : value) {
    if (constraint.instance.validate(item, args) !== true) return false;
  }
  return true;
}
