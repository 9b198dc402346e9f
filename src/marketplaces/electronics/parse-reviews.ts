/**
 * The spec's `reviews` part: review topics from the reviews API (`/ugc/v2/reviews`), statistics, expert reviews and
 * photos from the old page's ratings-and-reviews state, statistics from the new page's `reviewInfo` or the official
 * Products API. Pure.
 */
import { z } from 'zod';
import { snakeKeysDeep } from '../../util/snake-case.js';
import { arr, bool, first, num, obj, str, strArr } from './pick.js';
import type { ReviewPhoto, ReviewStats, ReviewTopic, Reviews } from './schema.js';

export interface ReviewSources {
  sku?: string;
  /** `/ugc/v2/reviews` JSON (parsed): `{totalPages, totalResults, topics}` or a bare topics array. */
  reviewsApi?: unknown;
  /** The page and order the reviews API was asked for. */
  reviewsRequest?: { page: number; sort: string };
  /** Old page `user-generated-content-ratings-and-reviews` state. */
  reviewsApp?: Record<string, unknown>;
  /** New page `productBySkuId` (its `reviewInfo`). */
  product?: Record<string, unknown>;
  /** Review topics saved beside an extracted page. */
  pageTopics?: unknown[];
  /** Official Products API product. */
  official?: Record<string, unknown>;
}

/** Topics of a reviews API answer, or undefined when it has none of the known shapes. */
export function topicsOf(body: unknown): unknown[] | undefined {
  return arr(body) ?? arr(obj(body)?.topics);
}

/**
 * What every topic the reviews API has answered carries (all 60 of the 2024 capture, and the 2025 page's): a string
 * id (a UUID), its `topicType` and `submissionTime`; and where present, the fields we read keep their types. Key names
 * alone prove nothing: an unrelated list of `{userId, id, title, body}` has `id` and `title` too.
 */
const reviewTopicShape = z.looseObject({
  id: z.string(),
  topicType: z.string(),
  submissionTime: z.string(),
  title: z.string().nullish(),
  text: z.string().nullish(),
  rating: z.number().nullish(),
});

/**
 * Whether a reviews API answer has the known shape: a topics list (maybe empty) whose every entry is a review topic.
 * Anything else — an unrelated JSON array, a list of numbers — is a format change (the part is missing), never a
 * list of topics made of whatever keys happened to match.
 */
export function isReviewsAnswer(body: unknown): boolean {
  const topics = topicsOf(body);
  return topics !== undefined && topics.every((t) => reviewTopicShape.safeParse(t).success);
}

/** One `/ugc/v2/reviews` topic → spec Review topic. */
export function toReviewTopic(t: Record<string, unknown>): ReviewTopic {
  const details = obj(t.productDetails);
  const links = obj(details?.links);
  return {
    id: str(t.id),
    cons: strArr(t.cons),
    pros: strArr(t.pros),
    text: str(t.text),
    title: str(t.title),
    author: str(t.author),
    badges: (arr(t.badges) ?? [])
      .map((b) => obj(b) ?? {})
      .map((b) => ({
        index: num(b.index),
        badge_code: str(b.badgeCode),
        badge_name: str(b.badgeName),
        badge_type: str(b.badgeType),
        badge_description: str(b.badgeDescription),
        icon_url: str(b.iconUrl),
        icon_path: str(b.iconPath),
        icon_text: str(b.iconText),
        file_name: str(b.fileName),
        image_u_r_l: str(b.imageURL),
      })),
    photos: (arr(t.photos) ?? []).map((p) => toPhoto(obj(p) ?? {})),
    rating: num(t.rating),
    topic_type: str(t.topicType),
    recommended: bool(t.recommended),
    comment_count: num(t.commentCount),
    brand_responses: (arr(t.brandResponses) ?? []).flatMap((r) => {
      const response = obj(snakeKeysDeep(r));
      return response ? [response] : [];
    }),
    product_details: details
      ? {
          name: str(details.name),
          links: links
            ? { pdp_path: str(links.pdpPath), rnr_path: str(links.rnrPath), reviews_path: str(links.reviewsPath) }
            : null,
          active: bool(details.active),
        }
      : null,
    submission_time: str(t.submissionTime),
    days_of_ownership: num(t.daysOfOwnership),
    write_comment_url: str(t.writeCommentUrl),
    negative_feedback_count: num(t.negativeFeedbackCount),
    positive_feedback_count: num(t.positiveFeedbackCount),
  };
}

function toPhoto(p: Record<string, unknown>): ReviewPhoto {
  return {
    caption: str(p.caption),
    photo_id: str(p.photoId),
    review_id: str(p.reviewId),
    normal_url: str(p.normalUrl),
    pisces_url: str(p.piscesUrl),
    thumbnail_url: str(p.thumbnailUrl),
  };
}

function toStats(s: Record<string, unknown>): ReviewStats {
  const dist = arr(s.ratingDistribution);
  return {
    total_review_count: num(s.totalReviewCount),
    recommended_percent: num(s.recommendedPercent),
    average_overall_rating: num(s.averageOverallRating),
    verified_purchase_count: num(s.verifiedPurchaseCount),
    rating_distribution: dist
      ? dist
          .map((d) => obj(d) ?? {})
          .map((d) => ({
            count: num(d.count),
            value: num(d.value),
            actual_percent: num(d.actualPercent),
            rounded_percent: num(d.roundedPercent),
          }))
      : null,
  };
}

function rating(r: Record<string, unknown> | undefined) {
  return r ? { actual: num(r.actual), rounded: num(r.rounded) } : null;
}

function toExpert(e: Record<string, unknown>): Reviews['expert'] {
  const reviews = obj(e.reviews);
  const summary = obj(e.reviewSummary);
  return {
    reviews: reviews
      ? {
          page: num(reviews.page),
          errors: arr(reviews.errors) ?? null,
          results: (arr(reviews.results) ?? [])
            .map((r) => obj(r) ?? {})
            .map((r) => ({
              skus: strArr(r.skus),
              rating: rating(obj(r.rating)),
              language: str(r.language),
              source_id: str(r.sourceId),
              review_url: str(r.reviewUrl),
              author_name: str(r.authorName),
              review_date: str(r.reviewDate),
              source_name: str(r.sourceName),
              review_title: str(r.reviewTitle),
              review_summary: str(r.reviewSummary),
              expert_review_id: str(r.expertReviewId),
              source_content_id: str(r.sourceContentId),
            })),
          page_size: num(reviews.pageSize),
          total_results: num(reviews.totalResults),
        }
      : null,
    review_summary: summary
      ? {
          sku: str(summary.sku),
          expert_summary: str(summary.expertSummary),
          total_results: num(summary.totalResults),
          overall_rating: rating(obj(summary.overallRating)),
        }
      : null,
  };
}

const NO_STATS: ReviewStats = {
  total_review_count: null,
  recommended_percent: null,
  average_overall_rating: null,
  verified_purchase_count: null,
  rating_distribution: null,
};

/** Statistics: the old page's full block, else the average and count the new page or the official API state. */
function buildStats(src: ReviewSources, app: Record<string, unknown> | undefined): ReviewStats | null {
  const appStats = obj(app?.stats);
  const stats = appStats ? toStats(appStats) : { ...NO_STATS };
  const info = obj(src.product?.reviewInfo);
  stats.average_overall_rating = first(
    stats.average_overall_rating,
    num(info?.averageRating),
    num(src.official?.customerReviewAverage),
  );
  stats.total_review_count = first(
    stats.total_review_count,
    num(info?.reviewCount),
    num(src.official?.customerReviewCount),
  );
  return Object.values(stats).every((v) => v === null) ? null : stats;
}

/**
 * Every review source → spec `reviews`, or null when none carried anything.
 * @example buildReviews({ sku: '6534615', reviewsApi: JSON.parse(body), reviewsRequest: { page: 1, sort: 'BEST_REVIEW' } })
 */
export function buildReviews(src: ReviewSources): Reviews | null {
  const app = obj(src.reviewsApp?.app) ?? src.reviewsApp;
  const rawTopics = topicsOf(src.reviewsApi) ?? arr(obj(app?.reviews)?.topics) ?? src.pageTopics;
  const topics = rawTopics?.map((t) => toReviewTopic(obj(t) ?? {}));
  const stats = buildStats(src, app);
  const expert = obj(app?.expert);
  const appPhotos = obj(app?.photos);
  const device = obj(app?.device);
  if (!topics && !stats && !app) return null;
  const fromApi = topicsOf(src.reviewsApi) !== undefined;
  return {
    page: first(num(app?.page), fromApi ? (src.reviewsRequest?.page ?? null) : null),
    sort: first(str(app?.sort), fromApi ? (src.reviewsRequest?.sort ?? null) : null),
    stats,
    device: device ? { is_large: bool(device.isLarge), is_small: bool(device.isSmall) } : null,
    expert: expert ? toExpert(expert) : null,
    is_bot: bool(app?.isBot),
    layout: str(app?.layout),
    photos: appPhotos
      ? {
          page: num(appPhotos.page),
          results: (arr(appPhotos.results) ?? []).map((p) => toPhoto(obj(p) ?? {})),
          page_size: num(appPhotos.pageSize),
          total_results: num(appPhotos.totalResults),
        }
      : topics
        ? // No photo gallery source today: the photos of the fetched topics, without paging figures we do not know.
          { page: null, results: topics.flatMap((t) => t.photos), page_size: null, total_results: null }
        : null,
    rating: str(app?.rating),
    feature: str(app?.feature),
    sku_id: first(str(app?.skuId), src.sku),
    reviews: topics ? { topics } : null,
  };
}
