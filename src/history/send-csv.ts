/** A CSV answer, shown inline with its file name (the db API and the history route). */
import type { FastifyReply } from 'fastify';

export function sendCsv(reply: FastifyReply, filename: string, body: string) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `inline; filename="${filename}"`)
    .send(body);
}
