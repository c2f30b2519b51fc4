// Column types shared by every room's schema.
import { customType, timestamp } from 'drizzle-orm/pg-core';

/** A coin amount in base units: NUMERIC(78,0) in the database, bigint in code (never a float). */
export const baseUnits = customType<{ data: bigint; driverData: string }>({
  dataType: () => 'numeric(78, 0)',
  toDriver: (value) => value.toString(),
  fromDriver: (value) => BigInt(String(value)),
});

/** A timestamp with time zone, as a Date. */
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
