import { ApiProperty } from '@nestjs/swagger';
import type { BalanceResponse } from '@gw/contracts';

/** The "Balance" resource of the interface. */
export class BalanceDto implements BalanceResponse {
  @ApiProperty({
    description: 'Current balance in roubles, a decimal string with 8 decimals',
    example: '1250.50000000',
  })
  amount!: string;
}
