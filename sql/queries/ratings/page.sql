-- A ratings page of plugin $1 (its exact id, as findVisiblePlugin returned it) in one
-- round trip: the star distribution from the plugin row (kept by the trigger of
-- 003_ratings.sql), `limit` $2 ratings from `offset` $3, newest first, ties
-- by user (walking plugin_ratings_page in order; hidden ratings left out, as a
-- report's resolution may hide one: sql/006), and the rating of viewer $4
-- (users.id, null for visitors) marked `mine`, hidden or not (`hidden` tells its
-- rater). Each rating carries its newest $5 replies and how many it has. Always at least one row, the plugin's: with a null
-- user when the page is empty and the viewer has no rating.
-- params: $1 plugin_id, $2 limit, $3 offset, $4 viewer_id, $5 replies_shown
-- The plugin's own columns and the coalesced ones are never null; a rating's are
-- null on the plugin-only row, which `mine` null tells.
-- not null: stars_1, stars_2, stars_3, stars_4, stars_5, rating_count, rating_sum, replies, reply_count
select p.stars_1, p.stars_2, p.stars_3, p.stars_4, p.stars_5, p.rating_count, p.rating_sum,
       r.mine, r.hidden, u.username, u.avatar, r.stars, r.comment, r.created_at, r.updated_at,
       coalesce(replies.list, '[]'::json) as replies, coalesce(replies.total, 0) as reply_count
  from plugins p
  left join lateral (
        (select false as mine, false as hidden, pr.user_id, pr.stars, pr.comment, pr.created_at, pr.updated_at
           from plugin_ratings pr
          where pr.plugin_id = p.id and not pr.hidden
          order by pr.updated_at desc, pr.user_id
          limit $2 offset $3)
        union all
        (select true, pr.hidden, pr.user_id, pr.stars, pr.comment, pr.created_at, pr.updated_at
           from plugin_ratings pr
          where pr.plugin_id = p.id and pr.user_id = $4::bigint)
       ) r on true
  left join users u on u.id = r.user_id
  left join lateral (
        select json_agg(json_build_object('id', shown.id, 'user', shown.username, 'avatar', shown.avatar,
                                          'body', shown.body, 'createdAt', shown.created_at)
                        order by shown.created_at desc, shown.id desc) as list,
               (select count(*)::integer
                  from plugin_rating_replies counted
                 where counted.plugin_id = p.id and counted.rating_user_id = r.user_id) as total
          from (select reply.id, author.username, author.avatar, reply.body, reply.created_at
                  from plugin_rating_replies reply
                  join users author on author.id = reply.user_id
                 where reply.plugin_id = p.id and reply.rating_user_id = r.user_id
                 order by reply.created_at desc, reply.id desc
                 limit $5) as shown
       ) replies on r.user_id is not null
 where p.id = $1
 order by r.mine, r.updated_at desc, r.user_id
