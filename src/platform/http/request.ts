// Reading a request's query string and path parameters, one way for every route file: a missing
// query is an empty object and a missing path parameter an empty string, so services never see
// undefined and answer their own "not found" or validation message.

/** A request's query string as a plain record (empty when there is none). */
export type Query = Record<string, unknown>;

export const queryOf = (req: { query: unknown }): Query => (req.query ?? {}) as Query;

/** The path parameter `name` (`/:name` in the route's url) as a string; '' when absent. */
export const paramOf = (req: { params: unknown }, name: string): string =>
  String((req.params as Record<string, unknown> | undefined)?.[name] ?? '');

/** The `:id` path parameter most resource routes carry. */
export const idOf = (req: { params: unknown }): string => paramOf(req, 'id');
