import { IsInt, IsString, MetadataStorage, validateSync, ValidateNested } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata-cache';

class Item {
  @IsString()
  name!: string;
}

class Order {
  @ValidateNested({ each: true })
  items!: Item[];
}

const order = (names: unknown[]) =>
  Object.assign(new Order(), { items: names.map((name) => Object.assign(new Item(), { name })) });

describe('memoizeValidationMetadata', () => {
  it('computes the rules of a class once and validates as before', () => {
    memoizeValidationMetadata();
    memoizeValidationMetadata();
    const storage = new MetadataStorage();
    let computed = 0;
    const original = storage.getTargetValidationMetadatas.bind(storage);
    storage.getTargetValidationMetadatas = (...args) => {
      computed++;
      return original(...args);
    };
    memoizeValidationMetadata(storage);
    storage.getTargetValidationMetadatas(Item, '', false, false);
    storage.getTargetValidationMetadatas(Item, '', false, false);
    storage.getTargetValidationMetadatas(Item, '', false, false, ['admin']);
    expect(computed).toBe(2);

    expect(validateSync(order(['a', 'b']))).toEqual([]);
    const errors = validateSync(order(['a', 7]));
    expect(errors[0].children?.[0].children?.[0].constraints).toEqual({ isString: 'name must be a string' });
  });

  it('sees a rule registered after the first validation', () => {
    memoizeValidationMetadata();
    class Late {
      @IsString()
      label!: string;

      count!: unknown;
    }
    const late = () => Object.assign(new Late(), { label: 'a', count: 'x' });
    expect(validateSync(late())).toEqual([]);
    IsInt()(Late.prototype, 'count');
    expect(validateSync(late())[0].constraints).toEqual({
      isInt: 'count must be an integer number',
    });
  });
});
